// Two tiles in shared memory; the second is stored one column to the right, so thread
// (15, 15) writes Bs[15][16], past the end of Bs: the compiler may place As there, which
// thread (0, 0) writes in the same barrier interval (the detector's layout does). Objects
// are checked apart only for accesses that stay inside them; this one leaves, so the
// verdict cannot be race-free. Where the byte lands is the compiler's choice: the static
// checker says `unknown`, and funmem-extract's run of the kernel observes the race.
// expect: race
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
