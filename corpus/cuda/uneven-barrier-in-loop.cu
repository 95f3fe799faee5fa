// A barrier under a uniform condition at the end of a loop body: for n != 12345 each
// iteration has one barrier, and thread t's read of s[t + 1] after it meets thread
// t + 1's write of s[t + 1] in the next iteration. The extractor once checked only the
// accesses after the `if` in the text and called the kernel race-free; branches with
// different numbers of barriers inside a loop are now unsupported.
// expect: race
__global__ void k(int* a, int n) {
  __shared__ int s[64];
  for (int i = 0; i < 2; i++) {
    if (threadIdx.x < 64) s[threadIdx.x] = i;
    __syncthreads();
    if (threadIdx.x < 63) a[blockIdx.x * blockDim.x + threadIdx.x] += s[threadIdx.x + 1];
    if (n == 12345) __syncthreads();
  }
}
