// The race-free counterpart of shared-index-leaves.cu: the guard keeps the shifted
// store inside Bs, so the two tiles are separate objects and no two threads meet.
// expect: race-free
//--blockDim=[16,16] --gridDim=[1,1]
#define TILE 16
__global__ void tiles(const float* A, const float* B, float* C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  As[ty][tx] = A[ty * TILE + tx];
  if (tx + 1 < TILE) Bs[ty][tx + 1] = B[ty * TILE + tx];
  __syncthreads();
  C[blockIdx.x * TILE * TILE + ty * TILE + tx] = As[ty][tx] + Bs[tx][ty];
}
