// `Out c = o;` runs Out's implicit copy constructor, which calls In's written one for
// the member `in`: every thread writes G[0]. Only the written initialisers of a
// constructor were followed, and the member constructions an implicit one makes are
// none of them.
// expect: race
__device__ int G[4];
struct In {
  int v;
  __device__ In() : v(0) {}
  __device__ In(const In& o) : v(o.v) { G[0] = threadIdx.x; }
};
struct Out {
  In in;
  int w;
};
__global__ void k(int* a) {
  Out o;
  o.w = 1;
  Out c = o;
  a[blockIdx.x * blockDim.x + threadIdx.x] = c.w;
}
