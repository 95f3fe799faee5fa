// Both declarations name one variable, and each thread writes only g[2i] and g[2i + 1].
// expect: race-free
extern __device__ int g[];
__device__ void f(int i) {
  g[2 * i + 1] = 2;
}
__device__ int g[1024];
__global__ void k() {
  __requires(blockDim.x * gridDim.x <= 512);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  g[2 * i] = 1;
  f(i);
}
