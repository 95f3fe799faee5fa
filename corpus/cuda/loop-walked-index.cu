// An index advanced inside a loop: thread t writes a[t] and a[t + 1], so neighbours
// collide on their second iteration. A local assigned in a loop is any value at the
// start of each iteration (the extractor once used the value before the loop for every
// iteration).
// expect: race
__global__ void k(int* a) {
  int j = threadIdx.x;
  for (int r = 0; r < 2; r++) {
    a[j] = r;
    j = j + 1;
  }
}
