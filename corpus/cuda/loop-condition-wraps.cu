// The condition's own arithmetic wraps: from 4294967295, `k + 1` is 0, so the loop runs
// (k = 4294967295, 0, 1) and every thread writes A[0]. Its range check was asked under
// the summary's facts, which take `k + 1 < 3` as a mathematical comparison: an empty
// loop, and every check vacuous.
// expect: race
__global__ void k(int* A) {
  for (unsigned k = 4294967295u; k + 1 < 3; k++)
    A[0] = threadIdx.x;
}
