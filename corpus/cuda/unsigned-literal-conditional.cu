// An unsigned literal at or above 2^31 is positive: `2147483648u` read as a signed 32-bit
// value made the facts of the `?:` (its value is one of the branches', and the int it is
// converted to equals it where it fits) contradict each other, and every question was
// vacuously disjoint: race-free, although every thread writes a[0]. Found by the
// generated-kernel campaign (funmem-race-fuzz --generate).
// expect: race
__global__ void k(int* a) {
  int v = a[1] ? 2147483648u : 2147483649u;
  a[2 + threadIdx.x] = v;
  a[0] = threadIdx.x;
}
