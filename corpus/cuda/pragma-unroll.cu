// `#pragma unroll` wraps the loop in an attributed statement: the loop is summarised as
// one without it. Each thread writes its own four elements.
// expect: race-free
__global__ void k(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
#pragma unroll
    for (int j = 0; j < 4; ++j) a[4 * i + j] = j;
  }
}
