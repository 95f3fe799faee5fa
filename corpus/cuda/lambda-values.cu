// Lambdas that capture nothing used as values: called at once, kept in a local (a
// generic one too), and converted to function pointers by the returns of a device
// function: each store is the thread's own element.
// expect: race-free
typedef void (*F)(int*, int);
__device__ F pick(bool c) {
  if (c) return [](int* p, int i) { p[2 * i] = 2; };
  return [](int* p, int i) { p[2 * i + 1] = 3; };
}
__global__ void lambda_values(int* a, int* b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  [](int* p, int i) { p[i] = i; }(a, t);
  auto f = [](auto* p, auto i) { p[i] += 1; };
  f(a, t);
  pick(t & 1)(b, t);
}
