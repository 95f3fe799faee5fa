// `extern __device__ int g[];` and the definition `__device__ int g[1024];` declare one
// variable: f writes g[i + 1] through the first declaration, the kernel g[i] through
// the second, and thread 0's g[1] is thread 1's g[1]. Each declaration was its own
// object.
// expect: race
extern __device__ int g[];
__device__ void f(int i) {
  g[i + 1] = 2;
}
__device__ int g[1024];
__global__ void k() {
  int i = threadIdx.x;
  g[i] = 1;
  f(i);
}
