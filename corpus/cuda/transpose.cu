//--blockDim=[16,16]
// A matrix transpose through a shared tile with a padded row (17 elements, no bank
// conflicts): the block loads a 16 x 16 tile by rows, waits, and writes it transposed.
// The launch (16 x 16 threads) comes from the GPUVerify-style header line above.
// expect: race-free
// currently: unknown (in the sanitizer build's test process only, after other files ran in the same Z3 context; race-free alone and in the normal build)
__global__ void transpose(const float* in, float* out, int width, int height) {
  __shared__ float tile[16][17];
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  int tx = blockIdx.y * 16 + threadIdx.x;
  int ty = blockIdx.x * 16 + threadIdx.y;
  if (tx < height && ty < width) out[ty * height + tx] = tile[threadIdx.x][threadIdx.y];
}
