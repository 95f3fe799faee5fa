// `In a[3] = {In(2)};` makes a[1] and a[2] with In's default constructor (the list's
// array filler), which writes g[0] in every thread.
// expect: race
__device__ int g[4];
struct In {
  int v;
  __device__ In() : v(1) { g[0] = 1; }
  __device__ In(int x) : v(x) {}
};
__global__ void k(int* o) {
  In a[3] = {In(2)};
  o[blockIdx.x * blockDim.x + threadIdx.x] = a[1].v;
}
