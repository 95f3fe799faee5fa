// LUD's internal update with the trailing submatrix starting one block too early (it
// instead of it + 1 for the block row): the first row of blocks is the row panel, which
// the other blocks read while these write it.
// expect: race
__global__ void lud_internal_race(float* a, int nb, int it) {
  int b = blockDim.x;
  if (blockDim.y != b) return;
  int n = nb * b;
  if (it < 0) return;
  if (it + 1 + blockIdx.x >= nb) return;
  if (it + blockIdx.y >= nb) return;
  int row = (it + blockIdx.y) * b + threadIdx.y;
  int col = (it + 1 + blockIdx.x) * b + threadIdx.x;
  int d0 = it * b;
  float sum = 0;
  for (int k = 0; k < b; k++)
    sum += a[row * n + d0 + k] * a[(d0 + k) * n + col];
  a[row * n + col] -= sum;
}
