// Every thread of a block writes one __shared__ scalar (GPUVerify's shared_int).
// expect: race
__global__ void k(int* out) {
  __shared__ int a;
  a = threadIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}
