// Pointers passed inside a structure by value, used through a method of it: each is an
// object of its own, like a pointer parameter.
// expect: race-free
struct buffers {
  float* in;
  float* out;
  __device__ void step(int i) { out[i] = 2 * in[i]; }
};
__global__ void k(buffers b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b.step(i);
}
