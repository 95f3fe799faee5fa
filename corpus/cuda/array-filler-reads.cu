// The elements the list leaves out get P's default member initialiser, which reads
// g[1]; no thread writes g.
// expect: race-free
__device__ int g[4];
struct P {
  int a;
  int b = g[1];
};
__global__ void k(int* o) {
  P arr[3] = {{1, 2}};
  o[blockIdx.x * blockDim.x + threadIdx.x] = arr[2].b;
}
