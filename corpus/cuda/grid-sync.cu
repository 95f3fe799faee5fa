// Cooperative groups: a grid-wide barrier between reading the right neighbour and
// writing one's own element, across blocks too.
// expect: race-free
//--blockDim=32 --gridDim=2
using namespace cooperative_groups;
__global__ void shift(int* a) {
  grid_group g = this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = a[i + 1];
  g.sync();
  a[i] = v;
}
