// The same through a device function that ends in a barrier under a uniform condition,
// called at the end of the loop body (for n != 12345 no barrier there).
// expect: race
__device__ void maybe_sync(int n) {
  if (n == 12345) __syncthreads();
}
__global__ void k(int* a, int n) {
  __shared__ int s[64];
  for (int i = 0; i < 2; i++) {
    if (threadIdx.x < 64) s[threadIdx.x] = i;
    __syncthreads();
    if (threadIdx.x < 63) a[blockIdx.x * blockDim.x + threadIdx.x] += s[threadIdx.x + 1];
    maybe_sync(n);
  }
}
