// The SDK's histogram: per-block bins in shared memory cleared, filled with atomics on
// data-dependent bins, then added into the global bins with atomics, with barriers
// between the phases (256 bins, 256 threads per block).
// expect: race-free
//--blockDim=256 --gridDim=8
__global__ void histogram(const unsigned char* data, unsigned int* bins, int n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
