// Inside V::m, the aggregate `W inner{0}` gets its member `v` from W's default member
// initialiser, whose `this` is `inner` (i = 0), not the method's object (i = the
// thread's id): every thread writes G[0]. The census looks at both forms of an
// initialiser list (the default initialisers are in the semantic one).
// expect: race
__device__ int G[4096];
struct W {
  int i;
  int v = (G[i] = 1);
};
struct V {
  int i;
  __device__ void m() {
    W inner{0};
    (void)inner;
  }
};
__global__ void k(int* p) {
  V w{(int)(blockIdx.x * blockDim.x + threadIdx.x)};
  w.m();
}
