// A barrier after a thread-dependent early return: the threads that left never reach
// it (barrier divergence), so the barrier intervals cannot be trusted.
// expect: unsupported
__global__ void early_exit(float* a, int n) {
  __shared__ float s[256];
  int tx = threadIdx.x;
  if (tx >= n) return;
  s[tx] = a[tx];
  __syncthreads();
  a[tx] = s[(tx + 1) % 256];
}
