// A call through a function pointer parameter: each thread reads and writes only its own
// element in either function the pointer may name (the functions of the file of its
// type whose address is taken, here by the precondition).
// expect: race-free
typedef void (*update_t)(float*, unsigned);

__device__ void twice(float* v, unsigned i) { v[i] = 2.0f * v[i]; }
__device__ void half(float* v, unsigned i) { v[i] = 0.5f * v[i]; }

__global__ void k(float* v, update_t f, unsigned n) {
  __requires(f == twice | f == half);
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) (*f)(v, i);
}
