//--blockDim=[16,16]
// The transpose without its barrier: a thread reads tile[tx][ty], which another thread
// of the block writes in the same interval.
// expect: race
__global__ void transpose_nobarrier(const float* in, float* out, int width, int height) {
  __shared__ float tile[16][17];
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  int tx = blockIdx.y * 16 + threadIdx.x;
  int ty = blockIdx.x * 16 + threadIdx.y;
  if (tx < height && ty < width) out[ty * height + tx] = tile[threadIdx.x][threadIdx.y];
}
