// A kernel inside an extern "C" block (as in many SDK samples): found and checked like
// any other.
// expect: race-free
extern "C" {
__global__ void scale(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 2.0f * a[i];
}
}
