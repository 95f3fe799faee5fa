// A kernel template: every instantiation the file makes is checked, under its
// arguments (here scale<64>, explicitly instantiated; its precondition ties the block
// size to B).
// expect: race-free
template <int B> __global__ void scale(float* a) {
  __requires(blockDim.x == B);
  int i = blockIdx.x * B + threadIdx.x;
  a[i] = 2.0f * a[i];
}
template __global__ void scale<64>(float*);
