// An assignment in the right operand of ||, which threads 0 and 1 of every block skip:
// they all write a[0]. The extractor once took the assignment as always done and
// called the kernel race-free; a local assigned under ?:, && or || is any value after.
// expect: race
__global__ void k(int* a) {
  int j = 0;
  (threadIdx.x < 2) || (j = blockIdx.x * blockDim.x + threadIdx.x);
  a[j] = 1;
}
