// The branch `__builtin_choose_expr` selects reads a[0], which thread 0 writes.
// expect: race
__global__ void k(int* a, int* b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  __builtin_choose_expr(sizeof(int) == 4, a, b)[t] = 1;
  b[t] = __builtin_choose_expr(1, a[0], a[t]) + 1;
}
