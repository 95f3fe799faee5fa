//--blockDim=32 --gridDim=1
// One warp: `__syncwarp()` orders thread n's write of s[n] before every thread's read of
// it. The static checker, which takes `__syncwarp` as no barrier, named a thread pair of
// this warp as a race witness; such a pair is no witness in a kernel with a `__syncwarp`.
// expect: race-free
// currently: unknown
__global__ void k(int* out, int n) {
  __requires(n >= 0 && n < 32);
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = t;
  __syncwarp();
  out[t] = s[n];
}
