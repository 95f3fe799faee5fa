//--blockDim=32 --gridDim=1
// Thread 0 writes s[0] and returns; the other lanes pass `__syncwarp()` without it (CUDA
// asks only the lanes that have not exited to take part) and read s[0]: nothing orders
// the write and the reads. The detector took any two warp-barrier intervals as ordered
// (for `__syncthreads` it knew a thread that returned never arrived). Found by an outside
// review.
// expect: race
__global__ void k(int* out) {
  __shared__ int s[32];
  int t = threadIdx.x;
  if (t == 0) s[0] = 1;
  if (t == 0) return;
  __syncwarp();
  out[t] = s[0];
}
