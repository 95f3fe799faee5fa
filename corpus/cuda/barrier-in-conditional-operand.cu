// A barrier in an operand of ?: runs only where the condition picks it: for n != 12345
// no thread reaches it, and thread 1's write of s[1] meets thread 0's read in one
// interval. The extractor once took the barrier as unconditional and called the kernel
// race-free; now it is unsupported (and running it shows the race).
// expect: race
__global__ void k(int* A, int n) {
  __requires(gridDim.x == 1);
  __requires(blockDim.x <= 64);
  __shared__ int s[64];
  s[threadIdx.x] = 1;
  n != 12345 ? (void)0 : __syncthreads();
  A[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
