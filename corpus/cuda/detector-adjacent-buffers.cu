// Each thread copies a row of 64 elements: race-free. With buffers shorter than the
// rows (the detector's default), the accesses past a buffer's end are out of bounds:
// they never land in the next buffer, where they would look like a race.
// expect: race-free
__global__ void k(const int* in, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < 64; ++j) out[t * 64 + j] = in[t * 64 + j] + 1;
}
