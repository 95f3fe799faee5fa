// `__builtin_bit_cast(int, gf[1])` reads gf[1], which thread 0 writes.
// expect: race
__device__ float gf[4];
__global__ void k(int* o) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t == 0) gf[1] = 1.0f;
  o[t] = __builtin_bit_cast(int, gf[1]);
}
