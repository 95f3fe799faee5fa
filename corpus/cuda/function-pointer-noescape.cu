// A call through a plain function pointer whose candidates (a plain function, one with
// a `noescape` parameter and a `noreturn` lambda) all write the thread's own element:
// no race.
// expect: race-free
typedef void (*FP)(int*, int);
__device__ void ok(int* p, int i) { p[i + 1] = 1; }
__device__ void own(int* __attribute__((noescape)) p, int i) { p[i + 1] = i; }
__global__ void k(int* a, int c) {
  FP f = &ok;
  if (c) f = &own;
  if (c < 0) f = [](int* p, int i) __attribute__((noreturn)) { p[i + 1] = 3; for (;;) {} };
  f(a, blockIdx.x * blockDim.x + threadIdx.x);
}
