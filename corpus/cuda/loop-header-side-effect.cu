// The step has a side effect: j counts the iterations (0 .. 3), so thread t writes
// A[2t + 2], which thread t + 1 writes too. The summary kept j at 0.
// expect: race
__global__ void k(int* A) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int j = 0;
  for (int i = 0; i < 4; i += (j++, 1))
    A[2 * t + j] = t;
}
