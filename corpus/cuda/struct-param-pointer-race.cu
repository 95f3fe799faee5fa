// Pointers passed inside a structure by value: two threads write one element of the
// structure's output buffer (`i / 2`), a race the detector confirms by allocating the
// structure's pointers as buffers of their own.
// expect: race
struct buffers {
  const float* in;
  float* out;
};
__global__ void k(buffers b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b.out[i / 2] = b.in[i];
}
