//--blockDim=7 --gridDim=1
// min of two ints is the signed minimum: t - 5 for threads 0..6, distinct indices.
// expect: race-free
__global__ void k(int* out) {
  __requires(gridDim.x == 1 && blockDim.x == 7);
  int t = threadIdx.x;
  out[min(t - 5, 2) + 10] = t;
}
