// A derived structure's member hides its base's of the same name: `q.p` and `q.B::p`
// are two pointers (two buffers, named `q.D::p` and `q.B::p`), so thread t + 1's write
// through one is no race with thread t's through the other.
// expect: race-free
struct B {
  int* p;
};
struct D : B {
  int* p;
};
__global__ void k(D q) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  q.p[t] = 1;
  q.B::p[t + 1] = 2;
}
