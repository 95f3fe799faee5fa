// Thread 0 publishes a pointer in a __shared__ variable and every thread reads it into a
// local with no barrier between: the read races with the write, though the local is
// never dereferenced (a pointer the extractor cannot follow is still a read).
// expect: race
__global__ void k(int* A) {
  __shared__ int* p;
  if (threadIdx.x == 0) p = A;
  int* q = p;
  (void)q;
}
