//--blockDim=64 --gridDim=2
// Threads t and t ^ 1 are in one warp, and `__syncwarp()` orders the memory accesses of
// a warp's threads: race-free at every launch. The static checker takes `__syncwarp` as
// no barrier (unknown); the run, where it is the warp's barrier, shows no race.
// expect: race-free
// currently: unknown
__global__ void k(int* out) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = t;
  __syncwarp();
  out[blockIdx.x * blockDim.x + t] = s[t ^ 1];
}
