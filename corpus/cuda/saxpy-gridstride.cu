// SAXPY with a grid-stride loop: thread g handles g, g + S, g + 2S, ... (S = blockDim.x
// * gridDim.x). The loop's count depends on the thread; the count of thread 0 bounds
// every thread's, so the other threads' elements are one LMAD.
// expect: race-free
__global__ void saxpy(float* y, const float* x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
