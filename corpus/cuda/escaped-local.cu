// A local changed through a pointer to it: every thread writes a[0]. The extractor once
// kept following j as threadIdx.x and called the kernel race-free; a local whose address
// is taken is any value at each read.
// expect: race
__global__ void k(int* a) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int* q = &j;
  *q = 0;
  a[j] = 1;
}
