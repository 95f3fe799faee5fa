// A thread block barrier does not order blocks: the last thread of block 0 reads what
// thread 0 of block 1 writes.
// expect: race
//--blockDim=32 --gridDim=2
using namespace cooperative_groups;
__global__ void shift(int* a) {
  thread_block b = this_thread_block();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = a[i + 1];
  b.sync();
  a[i] = v;
}
