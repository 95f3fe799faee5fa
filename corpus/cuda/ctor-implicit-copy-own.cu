// Out's implicit copy constructor calls In's, which only reads G[0]; each thread writes
// its own element of `a`.
// expect: race-free
__device__ int G[4];
struct In {
  int v;
  __device__ In() : v(0) {}
  __device__ In(const In& o) : v(o.v + G[0]) {}
};
struct Out {
  In in;
  int w;
};
__global__ void k(int* a) {
  Out o;
  o.w = 1;
  Out c = o;
  a[blockIdx.x * blockDim.x + threadIdx.x] = c.in.v;
}
