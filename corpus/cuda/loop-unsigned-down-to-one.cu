// `i > 0` stops an unsigned counter at 1: the loop writes a[2] and a[1], never a[60].
// expect: race-free
__global__ void k(int* a) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    for (unsigned i = 2; i > 0; i--)
      a[i & 63] = 1;
  if (threadIdx.x == 1 && blockIdx.x == 0) a[60] = 2;
}
