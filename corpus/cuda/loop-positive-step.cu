// `i += s` with s >= 1 counts up from 500: a[30] is never written by thread 0.
// expect: race-free
__global__ void k(int* a, int s) {
  __requires(s >= 1);
  if (threadIdx.x == 0 && blockIdx.x == 0)
    for (unsigned i = 50; i < 100; i += s)
      a[i] = 1;
  if (threadIdx.x == 1 && blockIdx.x == 0) a[30] = 2;
}
