// A function declared without a body (compiled elsewhere) given values only: the
// verdict assumes it touches none of the kernel's memory, and says so.
// expect: race-free
__device__ int scale(int v);
__global__ void k(int* a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = scale(a[i]);
}
