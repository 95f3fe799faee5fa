//--blockDim=4 --gridDim=1
// Thread t runs t iterations over its own row of 64 elements: no two threads meet.
// expect: race-free
__global__ void k(int* A) {
  for (int i = 0; i < threadIdx.x; i++)
    A[threadIdx.x * 64 + i] = i;
}
