// A method that writes through a member pointer: the pointer is loaded from a
// structure, whose value the extractor does not follow.
// expect: unsupported
struct sink {
  int* p;
  __device__ void store(int v) { *p = v; }
};
__global__ void k(int* d) {
  sink q{d};
  q.store(threadIdx.x);
}
