// An unsigned char counter stepping by 100 towards 250: 0, 100, 200, then C wraps 300 to
// 44 and the loop runs on (44, 144, 244, 88, ..., 52, 152, 252), so threads 0 and 1 both
// write a[52]. The value that ends the loop (300) was a constant that C wraps, taken
// modulo 256 without a check, and the loop was summarised as three iterations.
// expect: race
__global__ void k(int* a) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    for (unsigned char i = 0; i < 250; i += 100)
      a[i] = 1;
  if (threadIdx.x == 1 && blockIdx.x == 0) a[52] = 2;
}
