// `__builtin_choose_expr(c, x, y)` and `_Generic` run the branch their constant
// selects, and only it (the others, and _Generic's controlling operand, never run):
// every thread writes and reads its own elements.
// expect: race-free
__global__ void k(int* a, int* b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  __builtin_choose_expr(sizeof(int) == 4, a, b)[t] = 1;
  b[t] = __builtin_choose_expr(0, a[0], a[t]) + 1;
  _Generic(b[0] = 1, int: b, default: a)[t] += 2;
}
