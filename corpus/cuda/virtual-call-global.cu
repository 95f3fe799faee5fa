// A virtual call through a reference to a __device__ object of the derived class: D::f
// runs, and every thread writes A[0]. The extractor once inlined B::f (the static
// callee) and called the kernel race-free; a virtual call whose object's dynamic type
// Clang cannot name is now unsupported.
// expect: race
struct B {
  __device__ virtual void f(int* a) const { a[threadIdx.x] = 1; }
};
struct D : B {
  __device__ void f(int* a) const override { a[0] = 1; }
};
__device__ D gd;
__global__ void k(int* A) {
  __requires(gridDim.x == 1);
  const B& b = gd;
  b.f(A);
}
