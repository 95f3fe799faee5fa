// An `extern __shared__` array declared in a device function is the kernel's own
// dynamic shared memory too: the helper's stage[t] and the kernel's buf[t] are one
// place. The barrier separates the write from the neighbour's read.
// expect: race-free
__device__ void put(int t, float v) {
  extern __shared__ float stage[];
  stage[t] = v;
}
__global__ void k(float* out) {
  extern __shared__ float buf[];
  put(threadIdx.x, threadIdx.x * 2.0f);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x > 0 ? buf[threadIdx.x - 1] : 0.0f;
}
