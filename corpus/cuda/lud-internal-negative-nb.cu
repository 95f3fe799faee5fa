// LUD, the internal update of step `it`: block (bx, by) of the trailing submatrix, thread
// (tx, ty) owns one element and subtracts the product of its row of the column panel
// and its column of the row panel (both only read here). b = blockDim.x = blockDim.y.
// Without a check of nb: `it + 1 + blockIdx.x >= nb` compares as unsigned int (blockIdx.x
// is unsigned), so a negative nb returns nowhere, n = nb * b is negative and rows overlap
// (nb = -1, it = 0, 2 x 2 blocks of 2 x 2 threads: block (1,0) writes a[0], block (0,0)
// reads it).
// expect: race
__global__ void lud_internal_negative_nb(float* a, int nb, int it) {
  int b = blockDim.x;
  if (blockDim.y != b) return;
  int n = nb * b;
  if (it < 0) return;
  if (it + 1 + blockIdx.x >= nb) return;
  if (it + 1 + blockIdx.y >= nb) return;
  int row = (it + 1 + blockIdx.y) * b + threadIdx.y;
  int col = (it + 1 + blockIdx.x) * b + threadIdx.x;
  int d0 = it * b;
  float sum = 0;
  for (int k = 0; k < b; k++)
    sum += a[row * n + d0 + k] * a[(d0 + k) * n + col];
  a[row * n + col] -= sum;
}
