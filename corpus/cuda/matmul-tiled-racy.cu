// The tiled matrix multiplication without its second barrier: a fast thread loads the
// next tile of A while a slow one still reads the current one.
// expect: race
//--blockDim=[16,16] --gridDim=[4,4]
#define TILE 16
__global__ void matmul(const float* A, const float* B, float* C, int n) {
  __requires(n == gridDim.x * TILE);
  __requires(gridDim.x == gridDim.y);
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0;
  for (int t = 0; t < n / TILE; t++) {
    As[ty][tx] = A[row * n + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; k++)
      sum += As[ty][k] * Bs[k][tx];
  }
  C[row * n + col] = sum;
}
