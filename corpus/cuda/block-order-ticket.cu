//--blockDim=1 --gridDim=2
// Each block draws a ticket with atomicAdd and writes d[0] when the ticket is not its
// index. CUDA does not order blocks: if block 1 draws first, both blocks write d[0]. The
// detector ran blocks in index order only (every block drew its own index); it now runs
// a launch of several blocks in reverse order too. Found by an outside review.
// expect: race
__device__ unsigned ticket;
__global__ void k(int* d) {
  unsigned my = atomicAdd(&ticket, 1u);
  if (my != blockIdx.x) d[0] = 1;
}
