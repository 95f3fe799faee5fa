// A call through a plain function pointer may reach a function whose parameter is
// `noescape` or a lambda that is `noreturn` (the conversion drops both attributes):
// with c nonzero, bad writes a[0] in every thread.
// expect: race
typedef void (*FP)(int*, int);
__device__ void ok(int* p, int i) { p[i + 1] = 1; }
__device__ void bad(int* __attribute__((noescape)) p, int i) { p[0] = i; }
__global__ void k(int* a, int c) {
  FP f = &ok;
  if (c) f = &bad;
  if (c > 1000) f = [](int* p, int i) __attribute__((noreturn)) { p[i + 1] = 3; for (;;) {} };
  f(a, blockIdx.x * blockDim.x + threadIdx.x);
}
