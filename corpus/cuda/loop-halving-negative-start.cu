// `k >>= 1` from a negative start rises: -8, -4, -2 (then -1 for ever, ended here by the
// break), so thread 0 writes a[6] (k = -4) as thread 1 does. The summary's facts said
// the counter stays at or below its start.
// expect: race
__global__ void k(int* a) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    for (int k = -8; k > -100; k >>= 1) {
      a[k + 10] = 1;
      if (k == -2) break;
    }
  if (threadIdx.x == 1 && blockIdx.x == 0) a[6] = 2;
}
