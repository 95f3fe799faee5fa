// `i += 4294967295u` computes in unsigned and converts back to int: the step is -1, so
// i = 5, 4 and thread t writes A[t] and A[t + 1], which thread t + 1 writes too. The
// last step's wrap was assumed absent as if it were a signed overflow.
// expect: race
__global__ void k(int* A) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 5; i < 10; i += 4294967295u) {
    A[t + 5 - i] = t;
    if (i <= 4) break;
  }
}
