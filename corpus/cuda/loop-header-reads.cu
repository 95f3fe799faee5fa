// A loop whose bound and step are read from memory that no thread writes: the reads in
// its condition and increment are accesses, and none races.
// expect: race-free
__global__ void k(const int* n, const int* step, const float* in, float* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int i = 0; i < n[0]; i += step[0])
    acc += in[i];
  out[t] = acc;
}
