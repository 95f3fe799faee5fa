//pass
//--blockDim=4 --gridDim=2 -DWIDTH=8
// A row width given by the GPUVerify header's define: the static check and the
// detector's compilation both see WIDTH.
// expect: race-free
__global__ void fill(int* a) {
  a[blockIdx.x * WIDTH + threadIdx.x] = 1;
}
