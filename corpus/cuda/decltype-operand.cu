// The operand of decltype is never evaluated: `a[0] = 1` in it stores nothing.
// expect: race-free
__global__ void k(int* a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  decltype(a[0] = 1) r = a[i];
  r = 2;
}
