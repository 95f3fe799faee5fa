// (unsigned char)(t * 8) wraps: threads 0 and 32 both write out[0]. The witness comes from
// the exact (modular) model of the conversion.
// expect: race
__global__ void k(int* out) {
  __requires(gridDim.x == 1);
  unsigned char c = threadIdx.x * 8;
  out[c] = threadIdx.x;
}
