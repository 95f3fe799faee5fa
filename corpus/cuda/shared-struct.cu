// A __shared__ array of structures: every thread of a block writes s[0].x.
// expect: race
struct S {
  int x, y;
};
__global__ void k(int* out) {
  __shared__ S s[64];
  s[0].x = threadIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[0].x;
}
