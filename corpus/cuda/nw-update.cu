// Needleman-Wunsch, the anti-diagonal block update as hand-written CUDA does it: one
// block per block of the current anti-diagonal `diag` of a (q*b + 1) x (q*b + 1) score
// matrix (b = blockDim.x, q and b symbolic), its threads sweeping the block's inner
// anti-diagonals with a barrier between them. No annotation: the width is computed.
// expect: race-free
__global__ void nw_update(int* m, const int* ref, int q, int diag, int penalty) {
  int b = blockDim.x;
  int width = q * b + 1;
  int k = blockIdx.x;
  int tx = threadIdx.x;
  if (diag - k < 0) return;
  if (diag - k >= q) return;
  int row0 = k * b + 1;
  int col0 = (diag - k) * b + 1;
  for (int d = 0; d < 2 * b - 1; d++) {
    int r = row0 + tx;
    int c = col0 + d - tx;
    if (tx <= d && d - tx < b) {
      int nw = m[(r - 1) * width + c - 1] + ref[r * width + c];
      int up = m[(r - 1) * width + c] - penalty;
      int left = m[r * width + c - 1] - penalty;
      int best = nw > up ? nw : up;
      m[r * width + c] = best > left ? best : left;
    }
    __syncthreads();
  }
}
