// A default member initialiser runs in every construction of its class, also in the
// implicit default constructor of `S s;`: every thread writes G[0]. Such initialisers
// are no written part of the kernel, so the census did not look at them either.
// expect: race
__device__ int G[4];
struct S {
  int v = (G[0] = threadIdx.x);
};
__global__ void k(int* a) {
  S s;
  a[blockIdx.x * blockDim.x + threadIdx.x] = s.v;
}
