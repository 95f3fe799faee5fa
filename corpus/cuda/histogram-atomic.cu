// A histogram with atomicAdd on data-dependent bins: the bin is any value, and atomics
// do not race with each other; the data is only read.
// expect: race-free
__global__ void histogram(const int* data, int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(&bins[data[i]], 1);
}
