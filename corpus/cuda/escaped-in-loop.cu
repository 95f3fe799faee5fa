// A local changed through a pointer taken later in the same loop body: the first
// iteration writes a[t], the second a[0] in every thread. The extractor once forgot only
// the locals the body assigns by name and kept j = t for every iteration.
// expect: race
__global__ void k(int* a) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < 2; r++) {
    a[j] = r;
    int* q = &j;
    *q = 0;
  }
}
