// A vectorised copy: each thread moves one float4 (16 bytes, four floats) from in to
// out, the layout the SDK's bandwidth tests use.
// expect: race-free
__global__ void copy4(const float4* in, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
