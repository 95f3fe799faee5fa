//--blockDim=2 --gridDim=1
// __umul24's product of two 24-bit operands wraps modulo 2^32: t * 2^32 is 0 for every
// thread, and every thread writes s[0].
// expect: race
__global__ void k() {
  __shared__ int s[8];
  unsigned t = threadIdx.x;
  unsigned m = __umul24(t << 12, 1u << 20);
  if (m == 0) s[0] = t;
}
