// A Hillis-Steele inclusive scan of one block in place (the GPU Gems scan, one buffer):
// at each doubling distance d every thread reads its partner's value, all threads meet
// at a barrier, then each adds it to its own element, and meet again.
// expect: race-free
//--blockDim=64 --gridDim=1
__global__ void scan(const int* in, int* out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  for (int d = 1; d < 64; d *= 2) {
    int v = 0;
    if (t >= d) v = s[t - d];
    __syncthreads();
    if (t >= d) s[t] += v;
    __syncthreads();
  }
  out[t] = s[t];
}
