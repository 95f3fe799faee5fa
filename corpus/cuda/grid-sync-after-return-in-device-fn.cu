// The grid barrier of a device function that returns before it (for n != 12345): block
// 0 thread 0 writes A[0] and block 1 thread 0 reads it with no barrier between. Once
// called race-free; now unsupported (and running it shows the race).
// expect: race
namespace cg = cooperative_groups;
__device__ void gsync(int n) {
  if (n != 12345) return;
  cg::this_grid().sync();
}
__global__ void k(int* A, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) A[0] = 1;
  gsync(n);
  if (blockIdx.x == 1 && threadIdx.x == 0) A[1] = A[0];
}
