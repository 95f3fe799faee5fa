// (p + 0)->x: a member store through pointer arithmetic.
// expect: race
struct cell {
  int x, y;
};
__global__ void k(cell* p) {
  (p + 0)->x = threadIdx.x;
}
