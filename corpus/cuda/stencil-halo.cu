// The stencil with an off-by-one halo: the right halo element is loaded by thread
// blockDim.x - 2 into tile[tx + 2], the slot thread blockDim.x - 1 loads its own element
// into, in the same barrier interval.
// expect: race
__global__ void stencil_halo(const float* in, float* out, int n) {
  __shared__ float tile[1026];
  int tx = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tx;
  if (blockDim.x > 1024) return;
  if (i >= 1 && i + 1 < n) {
    tile[tx + 1] = in[i];
    if (tx == 0) tile[0] = in[i - 1];
    if (tx == blockDim.x - 2) tile[tx + 2] = in[i + 1];
  }
  __syncthreads();
  if (i >= 1 && i + 1 < n) out[i] = (tile[tx] + tile[tx + 1] + tile[tx + 2]) / 3;
}
