// `k >>= 1` from 64 falls: 64, 32, ..., 1; thread 0 writes a[74] .. a[11], never a[6].
// expect: race-free
__global__ void k(int* a) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    for (int k = 64; k > 0; k >>= 1)
      a[k + 10] = 1;
  if (threadIdx.x == 1 && blockIdx.x == 0) a[6] = 2;
}
