//--blockDim=4 --gridDim=1
// CUDA's `abs` has a `long long` overload: abs(t << 32) is not 0 for threads 1 to 3,
// which all write out[0]. The detector's host build called the C library's abs(int) on
// the truncated value (0): no race. Found by an outside review.
// expect: race
__global__ void k(int* out) {
  long long x = (long long)threadIdx.x << 32;
  if (abs(x) != 0) out[0] = 1;
}
