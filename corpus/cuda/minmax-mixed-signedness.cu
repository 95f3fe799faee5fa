// CUDA's min(int, unsigned) compares as unsigned (crt/math_functions.hpp; nvcc emits
// min.u32): for threads 0..4, t - 5 is a huge unsigned value and the minimum is 2, so
// threads 0 and 1 both write out[12]. Read as a signed minimum the indices were distinct
// and the kernel race-free.
// expect: race
__global__ void k(int* out) {
  __requires(gridDim.x == 1 && blockDim.x == 7);
  int t = threadIdx.x;
  out[min(t - 5, 2u) + 10] = t;
}
