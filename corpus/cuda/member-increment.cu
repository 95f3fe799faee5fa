// p[0].x += 1 by every thread: a read and a write of the same four bytes.
// expect: race
struct counter {
  int x, pad;
};
__global__ void k(counter* p) {
  p[0].x += 1;
}
