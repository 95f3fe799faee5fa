// The reduction tree without the barrier inside the loop: a thread of the next level
// reads a partial sum another thread may not have written yet.
// expect: race
__global__ void reduce_nobarrier(const float* in, float* out, int n) {
  __shared__ float s[1024];
  int tx = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tx;
  if (blockDim.x > 1024) return;
  s[tx] = i < n ? in[i] : 0;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h >>= 1) {
    if (tx < h) s[tx] += s[tx + h];
  }
  __syncthreads();
  if (tx == 0) out[blockIdx.x] = s[0];
}
