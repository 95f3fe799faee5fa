// A strided loop whose stride is a parameter: with GPUVerify's preconditions
// `__requires(sz == blockDim.x)` and one block, the threads' elements are disjoint (the
// verdict says it assumes them); requires-stride-racy.cu is the kernel without them.
// expect: race-free
#include <cuda.h>
__global__ void scale(float* A, int sz) {
  __requires(sz == blockDim.x);
  __requires(gridDim.x == 1);
  for (int i = threadIdx.x; i < 100 * sz; i += sz) {
    A[i] *= 2.0f;
  }
}
