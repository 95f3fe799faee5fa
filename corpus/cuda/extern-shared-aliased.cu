// Every `extern __shared__` array starts at the block's dynamic shared memory: `a` and
// `b` are one object. Thread t writes a[t] while thread t + 1 reads b[t] (the same
// bytes) in the same barrier interval.
// expect: race
__global__ void k(float* out) {
  extern __shared__ float a[];
  extern __shared__ float b[];
  a[threadIdx.x] = threadIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x > 0 ? b[threadIdx.x - 1] : 0.0f;
}
