// A 1-d three-point stencil through shared memory: each block loads its tile and one
// halo element on each side (threads 0 and blockDim.x - 1), waits, and writes the
// average to a separate output array.
// expect: race-free
__global__ void stencil(const float* in, float* out, int n) {
  __shared__ float tile[1026];
  int tx = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tx;
  if (blockDim.x > 1024) return;
  if (i >= 1 && i + 1 < n) {
    tile[tx + 1] = in[i];
    if (tx == 0) tile[0] = in[i - 1];
    if (tx == blockDim.x - 1) tile[tx + 2] = in[i + 1];
  }
  __syncthreads();
  if (i >= 1 && i + 1 < n) out[i] = (tile[tx] + tile[tx + 1] + tile[tx + 2]) / 3;
}
