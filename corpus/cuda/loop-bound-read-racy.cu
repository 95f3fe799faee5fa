// The loop's bound is read from memory in its condition, before every iteration, and
// thread 0 writes it: the reads of a[0] by the other threads race with that write. The
// extractor once summarised the loop and recorded no read in its condition.
// expect: race
__global__ void k(int* a, int* out) {
  __requires(gridDim.x == 1);
  int t = threadIdx.x;
  if (t == 0) a[0] = 5;
  for (int i = 0; i < a[0]; i++)
    out[t * 8 + i] = i;
}
