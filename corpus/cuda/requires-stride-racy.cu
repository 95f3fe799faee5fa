// requires-stride.cu without its precondition: sz = 2 with 4 threads makes threads 1
// and 3 both scale A[3].
// expect: race
#include <cuda.h>
__global__ void scale(float* A, int sz) {
  for (int i = threadIdx.x; i < 100 * sz; i += sz) {
    A[i] *= 2.0f;
  }
}
