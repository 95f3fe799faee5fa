// A barrier after a thread-dependent early return: the threads that left never reach
// it (barrier divergence), so the barrier intervals cannot be trusted and the static
// summary is unsupported. Blocks also race on a[0] (block 0 reads it, block 1 writes
// it), which running the kernel shows.
// expect: race
__global__ void early_exit(float* a, int n) {
  __shared__ float s[256];
  int tx = threadIdx.x;
  if (tx >= n) return;
  s[tx] = a[tx];
  __syncthreads();
  a[tx] = s[(tx + 1) % 256];
}
