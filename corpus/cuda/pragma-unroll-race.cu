// `#pragma unroll 2` on a loop whose last iteration writes the next thread's first
// element: the hint changes nothing of what the threads touch.
// expect: race
__global__ void k(float* a) {
  int i = threadIdx.x;
#pragma unroll 2
  for (int j = 0; j <= 4; ++j) a[4 * i + j] = j;
}
