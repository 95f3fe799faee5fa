// A histogram with atomicAdd on data-dependent bins: neither atomics nor an index read
// from memory can be summarised, and both are reported with their positions.
// expect: unsupported
__global__ void histogram(const int* data, int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(&bins[data[i]], 1);
}
