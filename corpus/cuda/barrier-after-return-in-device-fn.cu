// A device function that returns before its barrier (for n != 12345): the caller goes
// on, so the write of s[t] and the neighbour's read meet in one interval. The extractor
// once took the function's barrier as the caller's and called the kernel race-free; a
// barrier after an early return of a device function is now unsupported.
// expect: race
__device__ void maybe(int n) {
  if (n != 12345) return;
  __syncthreads();
}
__global__ void k(int* A, int n) {
  __requires(gridDim.x == 1);
  __shared__ int s[64];
  s[threadIdx.x] = 1;
  maybe(n);
  A[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
