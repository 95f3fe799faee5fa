// The in-place scan without the barrier between the read and the add: thread t reads
// s[t - d] while thread t - d adds to it.
// expect: race
//--blockDim=64 --gridDim=1
__global__ void scan(const int* in, int* out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  for (int d = 1; d < 64; d *= 2) {
    int v = 0;
    if (t >= d) v = s[t - d];
    if (t >= d) s[t] += v;
    __syncthreads();
  }
  out[t] = s[t];
}
