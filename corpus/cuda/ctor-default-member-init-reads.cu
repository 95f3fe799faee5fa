// The default member initialiser only reads G[0], which no thread writes.
// expect: race-free
__device__ int G[4];
struct S {
  int v = G[0] + 1;
};
__global__ void k(int* a) {
  S s;
  a[blockIdx.x * blockDim.x + threadIdx.x] = s.v;
}
