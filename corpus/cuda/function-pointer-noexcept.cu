// A call through a plain function pointer may reach a `noexcept` function (the pointer
// converts): w writes a[0] in every thread. The extractor once left w out of the
// candidates and called the kernel race-free.
// expect: race
__device__ void w(int* a) noexcept { a[0] = threadIdx.x; }
__device__ void r(int* a) {}
__global__ void k(int* a, int c) {
  void (*f)(int*) = c ? w : r;
  f(a);
}
