// Lambdas that capture nothing used as values: called at once, kept in a local (a
// generic one too), and converted to function pointers by the returns of a device
// function: the one even threads get stores b[t / 2], the odd threads' one b[2 * t]
// (threads 4 and 1 both store b[2]).
// expect: race
typedef void (*F)(int*, int);
__device__ F pick(bool c) {
  if (c) return [](int* p, int i) { p[2 * i] = 2; };
  return [](int* p, int i) { p[i / 2] = 3; };
}
__global__ void lambda_values_race(int* a, int* b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  [](int* p, int i) { p[i] = i; }(a, t);
  auto f = [](auto* p, auto i) { p[i] += 1; };
  f(a, t);
  pick(t & 1)(b, t);
}
