// `(t + 1) << 30` of thread 1 is 2^31: C++ defines a left shift of a non-negative signed
// value whose result fits the corresponding unsigned type (the value, converted: INT_MIN
// here), so threads 0 and 1 both write a[0]. The shift was assumed not to overflow, which
// limited the verdict to one thread per block: race-free. Found by an outside review.
// expect: race
__global__ void k(int* o) {
  __shared__ int a[1];
  int t = threadIdx.x;
  if (t < 2 && ((t + 1) << 30) < 0) a[0] = 1;
  if (t == 0) a[0] = 2;
}
