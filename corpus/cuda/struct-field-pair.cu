// Two threads per element write the same field (p[i].x with i = t / 2).
// expect: race
struct point {
  int x, y;
};
__global__ void k(point* p) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  p[t / 2].x = t;
}
