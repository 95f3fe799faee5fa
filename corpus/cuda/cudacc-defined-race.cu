// Every CUDA compiler defines __CUDACC__ (nvcc, and clang in its CUDA headers): the
// branch that runs stores element 0 in every thread.
// expect: race
__global__ void k(int* a) {
#ifdef __CUDACC__
  a[0] = threadIdx.x;
#else
  a[threadIdx.x + blockIdx.x * blockDim.x] = 1;
#endif
}
