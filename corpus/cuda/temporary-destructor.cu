// The temporary `In()` is destroyed at the end of the full-expression: its destructor
// writes G[0] in every thread. The static extractor does not follow destructors (the
// kernel is unsupported there); the run shows the race.
// expect: race
__device__ int G[4];
struct In {
  int v = 1;
  __device__ ~In() { G[0] = threadIdx.x; }
};
__global__ void k(int* a) {
  a[blockIdx.x * blockDim.x + threadIdx.x] = In().v;
}
