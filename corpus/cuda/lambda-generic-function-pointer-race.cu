// A generic lambda converted to a function pointer: the conversion instantiates its
// call operator for `int*` and `int`, which a call through a pointer of that type may
// reach.
// expect: race
typedef void (*store_fn)(int*, int);
__device__ void own(int* p, int i) { p[i] = i; }
__device__ store_fn table[2] = {own, [](auto* p, auto i) { p[i / 2] = i; }};
__global__ void k(int* a) {
  table[1](a, blockIdx.x * blockDim.x + threadIdx.x);
}
