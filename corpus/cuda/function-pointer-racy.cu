// A function pointer chosen by a parameter: one of the two functions it may name writes
// element 0 in every thread.
// expect: race
typedef void (*update_t)(float*, unsigned);

__device__ void twice(float* v, unsigned i) { v[i] = 2.0f * v[i]; }
__device__ void reset(float* v, unsigned i) { v[0] = 0.0f; }

__global__ void k(float* v, unsigned n, int mode) {
  update_t f = mode == 1 ? twice : reset;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f(v, i);
}
