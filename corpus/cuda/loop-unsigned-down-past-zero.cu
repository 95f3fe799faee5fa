// `i >= 0` holds for every unsigned i: from 2 the counter goes 2, 1, 0, then C wraps it to
// 4294967295 and on down to the break at 4294967290, writing a[60] (4294967292 & 63)
// as thread 1 does. The value that ends the loop (-1) was a constant that C wraps, taken
// modulo 2^32 without a check.
// expect: race
__global__ void k(int* a) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    for (unsigned i = 2; i >= 0; i--) {
      a[i & 63] = 1;
      if (i == 4294967290u) break;
    }
  if (threadIdx.x == 1 && blockIdx.x == 0) a[60] = 2;
}
