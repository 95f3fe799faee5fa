// A structure assigned whole: every thread writes all eight bytes of pairs[42].
// expect: race
struct pair {
  int first, second;
};
__global__ void k(pair* pairs, pair fresh) {
  pairs[42] = fresh;
}
