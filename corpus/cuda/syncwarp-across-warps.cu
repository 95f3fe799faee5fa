//--blockDim=64 --gridDim=1
// Threads t and t ^ 32 are in different warps: `__syncwarp()` does not order them, and
// thread 32 reads s[0] while thread 0 writes it (at 64 threads per block).
// expect: race
__global__ void k(int* out) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = t;
  __syncwarp();
  out[blockIdx.x * blockDim.x + t] = s[t ^ 32];
}
