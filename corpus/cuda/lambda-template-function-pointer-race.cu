// A captureless lambda converted to a function pointer inside a class template's
// instantiation (`H<3>::get()`): a target of calls through pointers of its type like
// any other, where every thread writes a[3].
// expect: race
typedef void (*fp)(int*, int);
__device__ void own(int* p, int i) { p[i] = i; }
template <int K> struct H {
  static constexpr __device__ fp get() {
    return [](int* p, int i) { p[K] = i; };
  }
};
__device__ fp tab[2] = {own, H<3>::get()};
__global__ void k(int* a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tab[1](a, i);
}
