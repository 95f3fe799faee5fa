// The race-free counterpart of int-narrow-uchar.cu: under the guard the conversion to
// `unsigned char` keeps every value, so the threads' elements stay distinct.
// expect: race-free
//--blockDim=[512] --gridDim=[1]
__global__ void k(int* out) {
  __shared__ int A[512];
  if (threadIdx.x < 256) A[(unsigned char)threadIdx.x] = 1;
  out[threadIdx.x] = 0;
}
