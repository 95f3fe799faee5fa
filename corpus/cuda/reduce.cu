// A reduction tree in shared memory: each block sums its blockDim.x elements (a power of
// two at most 1024) by halving the number of active threads, with a barrier after each
// level, and thread 0 writes the block's sum.
// expect: race-free
__global__ void reduce(const float* in, float* out, int n) {
  __shared__ float s[1024];
  int tx = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tx;
  if (blockDim.x > 1024) return;
  s[tx] = i < n ? in[i] : 0;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h >>= 1) {
    if (tx < h) s[tx] += s[tx + h];
    __syncthreads();
  }
  if (tx == 0) out[blockIdx.x] = s[0];
}
