// A float4 store into a float array at a stride of 2 floats: each thread's 16 bytes
// overlap its right neighbour's first 8.
// expect: race
__global__ void store4(float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  reinterpret_cast<float4*>(out + 2 * i)[0] = make_float4(0, 0, 0, 0);
}
