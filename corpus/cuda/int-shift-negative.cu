// `>>` of a negative int rounds down (-1 >> 1 == -1, -2 >> 1 == -1), unlike division:
// threads 0 and 1 both store to A[0].
// expect: race
//--blockDim=[32] --gridDim=[1]
__global__ void k(int* out) {
  __shared__ int A[32];
  int v = -1 - (int)threadIdx.x;
  if (threadIdx.x < 2) A[(v >> 1) + 1] = threadIdx.x;
  out[threadIdx.x] = 0;
}
