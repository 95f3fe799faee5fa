// A product stored in an `unsigned short` wraps at 65536: t * 2048 and (t + 32) * 2048
// are one value, so threads t and t + 32 store to one element.
// expect: race
//--blockDim=[64] --gridDim=[1]
__global__ void k(int* out) {
  __shared__ int A[64];
  unsigned short h = threadIdx.x * 2048;
  A[h / 2048] = threadIdx.x;
  out[threadIdx.x] = 0;
}
