// A grid-stride loop that shifts an array left in place: element i + 1 is read by one
// thread while another thread overwrites it.
// expect: race
__global__ void shift_left(float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i + 1 < n; i += blockDim.x * gridDim.x)
    y[i] = y[i + 1];
}
