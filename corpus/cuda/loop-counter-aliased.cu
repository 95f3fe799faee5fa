// The counter changes through a pointer taken before the loop: i = 0, then 4 + 1 = 5,
// so thread t writes A[5t] and A[5t + 5], which thread t + 1 writes too. The summary
// (i = 0, 4) only looked for assignments that name the counter.
// expect: race
__global__ void k(int* A) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int i;
  int* p = &i;
  for (i = 0; i < 8; i += 4) {
    A[5 * t + i] = t;
    *p += 1;
  }
}
