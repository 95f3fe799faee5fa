// (unsigned char)(t + 200) wraps for t >= 56, and over a block of 256 threads it is a
// permutation of 0..255: race-free. The conversion's wrap cannot be proved absent, so the
// checker models it exactly (modulo 256) in a second extraction.
// expect: race-free
__global__ void k(int* out) {
  __requires(gridDim.x == 1 && blockDim.x == 256);
  unsigned char c = threadIdx.x + 200;
  out[c] = threadIdx.x;
}
