// `__builtin_bit_cast` only reads gf[1]; no thread writes it.
// expect: race-free
__device__ float gf[4];
__global__ void k(int* o) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  o[t] = __builtin_bit_cast(int, gf[1]);
}
