// A method that writes through a member pointer: the pointer is loaded from a local
// structure, whose value the extractor does not follow (unsupported); every thread
// writes d[0], which running the kernel shows.
// expect: race
struct sink {
  int* p;
  __device__ void store(int v) { *p = v; }
};
__global__ void k(int* d) {
  sink q{d};
  q.store(threadIdx.x);
}
