// A device function called with each thread's own element: inlined, proved race-free.
// expect: race-free
__device__ void scale(float* row, int j, float s) {
  row[j] = row[j] * s;
}
__global__ void k(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) scale(a, i, 2.0f);
}
