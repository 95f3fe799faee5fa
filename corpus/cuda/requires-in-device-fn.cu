// A precondition of a device function is its callers' obligation, not a fact: the
// call passes a stride that breaks it, and the race stays.
// expect: race
#include <cuda.h>
__device__ void scale_from(float* A, int start, int sz) {
  __requires(sz == blockDim.x);
  for (int i = start; i < 100 * sz; i += sz) {
    A[i] *= 2.0f;
  }
}
__global__ void k(float* A, int sz) {
  scale_from(A, threadIdx.x, sz);
}
