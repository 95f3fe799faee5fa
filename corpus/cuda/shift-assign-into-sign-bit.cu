// `v <<= 30` with v = 2 is 2^31, defined in C++ (the value converted: INT_MIN), so thread
// 1 writes a[0] beside thread 0; the compound shift was taken as an overflow C leaves
// undefined and assumed away: race-free. Found by an outside review.
// expect: race
__global__ void k(int* o) {
  __shared__ int a[1];
  int t = threadIdx.x;
  int v = t * 2;
  v <<= 30;
  if (t < 2 && v < 0) a[0] = 1;
  if (t == 0) a[0] = 2;
}
