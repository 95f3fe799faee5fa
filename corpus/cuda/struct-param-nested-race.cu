// Pointers in a nested structure parameter, in an array member and behind a base class:
// each is an object of its own. The writes through `q.io.dst[1]` race (every thread
// writes element 0); those through `q.io.dst[0]` and `q.out` do not.
// expect: race
struct base {
  int* out;
};
struct inner {
  int* dst[2];
  int scale;
};
struct params : base {
  inner io;
};
__global__ void k(params q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    q.out[i] = i;
    q.io.dst[0][i] = q.io.scale;
    q.io.dst[1][0] = i;
  }
}
