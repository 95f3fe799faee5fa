//--blockDim=64 --gridDim=4
// __mul24 of operands that fit in 24 bits and a product that fits in 32 bits is the
// product: each thread writes its own element.
// expect: race-free
__global__ void k(int* a) {
  int i = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
  a[i] = i;
}
