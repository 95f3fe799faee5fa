// The loop's step is read from memory after every iteration, and thread 1 writes it: the
// other threads' reads of a[1] race with that write. The extractor once summarised the
// loop, recorded no read in its increment and called the kernel race-free.
// expect: race
__global__ void k(int* a, int* out) {
  __requires(gridDim.x == 1);
  int t = threadIdx.x;
  if (t == 1) a[1] = 5;
  for (int i = 0; i < 8; i += a[1])
    out[t * 8 + i] = i;
}
