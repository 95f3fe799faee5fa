// A loop with a barrier whose bound is read from shared memory that thread 0 writes in
// the body: threads may run different numbers of iterations (barrier divergence), so the
// extractor refuses the kernel.
// expect: unsupported
__global__ void k(int* out) {
  __shared__ int n[1];
  int t = threadIdx.x;
  if (t == 0) n[0] = 4;
  __syncthreads();
  for (int i = 0; i < n[0]; i++) {
    out[blockIdx.x * blockDim.x + t] = i;
    __syncthreads();
    if (t == 0) n[0] = 0;
    __syncthreads();
  }
}
