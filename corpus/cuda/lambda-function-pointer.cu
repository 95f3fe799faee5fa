// Calls through a function pointer whose targets are a function and a captureless
// lambda (converted in a file-scope table): each writes the thread's own element.
// expect: race-free
typedef void (*store_fn)(int*, int);
__device__ void own(int* p, int i) { p[i] = i; }
__device__ store_fn table[2] = {own, [](int* p, int i) { p[i] = 2 * i; }};
__global__ void k(int* a, store_fn f) {
  f(a, blockIdx.x * blockDim.x + threadIdx.x);
}
