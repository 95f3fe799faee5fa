// template-kernel.cu with blocks half as far apart as they are wide: in scale<64>,
// thread 32 of block 0 and thread 0 of block 1 both scale a[32].
// expect: race
template <int B> __global__ void scale(float* a) {
  __requires(blockDim.x == B);
  int i = blockIdx.x * (B / 2) + threadIdx.x;
  a[i] = 2.0f * a[i];
}
template __global__ void scale<64>(float*);
