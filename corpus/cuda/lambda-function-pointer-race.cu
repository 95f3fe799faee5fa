// A captureless lambda converted to a function pointer in a file-scope table: a call
// through a pointer of its type may reach the lambda's body, where two threads write
// one element (`i / 2`). Not only the functions named by `&f` are targets.
// expect: race
typedef void (*store_fn)(int*, int);
__device__ void own(int* p, int i) { p[i] = i; }
__device__ store_fn table[2] = {own, [](int* p, int i) { p[i / 2] = i; }};
__global__ void k(int* a) {
  table[1](a, blockIdx.x * blockDim.x + threadIdx.x);
}
