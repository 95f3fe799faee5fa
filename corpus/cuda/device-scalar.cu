// Every thread writes one __device__ scalar.
// expect: race
__device__ int last;
__global__ void k(const int* in) {
  last = in[blockIdx.x * blockDim.x + threadIdx.x];
}
