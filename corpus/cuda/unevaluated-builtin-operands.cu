// The operands of __builtin_constant_p, __builtin_classify_type and __builtin_assume
// are not evaluated: the stores and loads written in them never run.
// expect: race-free
__global__ void k(int* p) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (__builtin_constant_p(p[0] = t)) p[t] = 1;
  int c = __builtin_classify_type(p[1] = t);
  __builtin_assume(p[2] == 0 || t >= 0);
  p[t + 8] = c;
}
