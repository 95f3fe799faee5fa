// LUD, the perimeter update of step `it` on an (nb*b) x (nb*b) matrix (b = blockDim.x):
// block j updates the row-panel block right of the diagonal block (thread tx owns one
// column and substitutes forward down it) and the column-panel block below it (thread tx
// owns one row). The diagonal block is only read.
// expect: race-free
__global__ void lud_perimeter(float* a, int nb, int it) {
  int b = blockDim.x;
  int n = nb * b;
  int j = blockIdx.x;
  int tx = threadIdx.x;
  if (it + 1 + j >= nb) return;
  if (it < 0) return;
  int bc = (it + 1 + j) * b;
  int d0 = it * b;
  for (int r = 1; r < b; r++) {
    float sum = 0;
    for (int k = 0; k < r; k++)
      sum += a[(d0 + r) * n + d0 + k] * a[(d0 + k) * n + bc + tx];
    a[(d0 + r) * n + bc + tx] -= sum;
  }
  for (int c = 0; c < b; c++) {
    float sum = 0;
    for (int k = 0; k < c; k++)
      sum += a[(bc + tx) * n + d0 + k] * a[(d0 + k) * n + d0 + c];
    a[(bc + tx) * n + d0 + c] = (a[(bc + tx) * n + d0 + c] - sum) / a[(d0 + c) * n + d0 + c];
  }
}
