// p[t].x and p[t].y are different bytes: thread t copies the y of element t - 1 into
// the x of element t, which no other thread reads or writes; no race.
// expect: race-free
struct point {
  int x, y;
};
__global__ void k(point* p, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t > 0 && t < n) p[t].x = p[t - 1].y;
}
