// The counter changes through a pointer taken before the loop, so the loop is not
// summarised (any number of iterations); each thread still writes only its own element.
// expect: race-free
__global__ void k(int* A) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int i;
  int* p = &i;
  for (i = 0; i < 8; i += 4) {
    A[t] = t;
    *p += 1;
  }
}
