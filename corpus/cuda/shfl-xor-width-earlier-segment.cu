//--blockDim=32 --gridDim=1
// `__shfl_xor_sync(~0u, t, 8, 8)`: lane 8's source lane 0 lies in an earlier segment of
// width 8, which CUDA reads (only a later segment gives the caller's own value), so
// lanes 0 and 8 both get 0 and write out[0]. The detector gave every lane outside its
// segment its own value. Found by an outside review.
// expect: race
__global__ void k(int* out) {
  int t = threadIdx.x;
  int v = __shfl_xor_sync(0xffffffffu, t, 8, 8);
  out[v] = 1;
}
