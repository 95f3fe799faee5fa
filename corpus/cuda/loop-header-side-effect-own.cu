// A side effect in the step leaves the loop not summarised; each thread writes only
// its own element.
// expect: race-free
__global__ void k(int* A) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int j = 0;
  for (int i = 0; i < 4; i += (j++, 1))
    A[t] = j;
}
