// The shared histogram with a plain increment instead of atomicAdd: two threads whose
// data fall in one bin both write it.
// expect: race
//--blockDim=256 --gridDim=8
__global__ void histogram(const unsigned char* data, unsigned int* bins, int n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    local[data[i]]++;
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
