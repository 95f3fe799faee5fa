// A scatter through an index array: the written element depends on the data, and two
// threads whose indices are equal write the same element.
// expect: race
__global__ void scatter(const int* idx, const float* v, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[idx[i]] = v[i];
}
