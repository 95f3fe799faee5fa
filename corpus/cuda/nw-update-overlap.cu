// NW's anti-diagonal update with the blocks' column stride off by one (b - 1 instead of
// b): neighbouring blocks of the same anti-diagonal share a column, and one block
// writes what the next one reads.
// expect: race
__global__ void nw_update_overlap(int* m, const int* ref, int q, int diag, int penalty) {
  int b = blockDim.x;
  int width = q * b + 1;
  int k = blockIdx.x;
  int tx = threadIdx.x;
  if (diag - k < 0) return;
  if (diag - k >= q) return;
  int row0 = k * b + 1;
  int col0 = (diag - k) * (b - 1) + 1;
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
