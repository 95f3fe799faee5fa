//--blockDim=2 --gridDim=1
// __mul24 gives the low 32 bits of the product of its operands' low 24 bits: both
// operands fit in 24 bits here, but their product t * 2^32 does not fit in 32 bits, and
// its low 32 bits are 0 for every thread. Every thread writes s[0]. The extractor took
// the product itself as the value (only thread 0 would write). Found by an outside review.
// expect: race
__global__ void k() {
  __shared__ int s[8];
  int t = threadIdx.x;
  int m = __mul24(t << 12, 1 << 20);
  if (m == 0) s[0] = t;
}
