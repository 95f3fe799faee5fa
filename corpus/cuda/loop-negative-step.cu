// `i += s` with s = -10 counts down from 50 (50, 40, 30, 20, 10, 0, then C
// wraps the counter past 100 and the loop ends), so thread 0 writes a[30] as thread 1
// does. The summary counted (100 - 50 + s - 1) / s iterations, none for s < 0.
// expect: race
__global__ void k(int* a, int s) {
  __requires(s == -10);
  if (threadIdx.x == 0 && blockIdx.x == 0)
    for (unsigned i = 50; i < 100; i += s)
      a[i] = 1;
  if (threadIdx.x == 1 && blockIdx.x == 0) a[30] = 2;
}
