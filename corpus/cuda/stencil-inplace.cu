// The stencil in place, without a tile: thread i writes a[i] while its neighbours read
// it.
// expect: race
__global__ void stencil_inplace(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1) return;
  if (i + 1 >= n) return;
  a[i] = (a[i - 1] + a[i] + a[i + 1]) / 3;
}
