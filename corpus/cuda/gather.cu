// A scatter through an index array: the written element depends on the data.
// expect: unsupported
__global__ void scatter(const int* idx, const float* v, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[idx[i]] = v[i];
}
