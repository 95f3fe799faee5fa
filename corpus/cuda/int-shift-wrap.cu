// Unsigned `<<` drops the bits it shifts out: `t << 27 >> 27` is t mod 32, so threads t
// and t + 32 store to one element.
// expect: race
//--blockDim=[64] --gridDim=[1]
__global__ void k(int* out) {
  unsigned j = threadIdx.x << 27;
  out[j >> 27] = 1;
}
