// An unsigned char counter stepping by 50 towards 250 ends at 250, which its type holds:
// the loop runs five times (0 .. 200) and never reaches a[52].
// expect: race-free
__global__ void k(int* a) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    for (unsigned char i = 0; i < 250; i += 50)
      a[i] = 1;
  if (threadIdx.x == 1 && blockIdx.x == 0) a[52] = 2;
}
