// Two tiles in shared memory; the second is stored one column to the right, so thread
// (15, 15) writes Bs[15][16], past the end of Bs. Where the byte lands is the
// compiler's choice (As, which thread (0, 0) writes in the same barrier interval, may
// follow Bs): neither a race nor its absence can be promised. Objects are checked apart
// only for accesses that stay inside them; this one leaves, so the static checker says
// `unknown`, and the dynamic detector reports the write out of bounds of 'Bs' (an
// element of a named array is checked against the array's bytes).
// expect: unknown
//--blockDim=[16,16] --gridDim=[1,1]
#define TILE 16
__global__ void tiles(const float* A, const float* B, float* C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  As[ty][tx] = A[ty * TILE + tx];
  Bs[ty][tx + 1] = B[ty * TILE + tx];
  __syncthreads();
  C[blockIdx.x * TILE * TILE + ty * TILE + tx] = As[ty][tx] + Bs[tx][ty];
}
