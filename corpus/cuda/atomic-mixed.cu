// An atomic and a plain read of the same cell race.
// expect: race
__global__ void k(int* count, int* out) {
  atomicAdd(&count[0], 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = count[0];
}
