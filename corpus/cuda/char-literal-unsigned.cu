// An unsigned char holding '\xff' is 255: (c - 254) * g is g, distinct for every thread.
// expect: race-free
__global__ void k(int* out) {
  unsigned char c = '\xff';
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  out[(c - 254) * g] = g;
}
