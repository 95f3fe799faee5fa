// Atomics on one cell do not race with each other.
// expect: race-free
__global__ void k(int* count, const int* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0) atomicAdd(&count[0], 1);
}
