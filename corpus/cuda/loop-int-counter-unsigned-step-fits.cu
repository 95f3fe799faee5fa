// `i += 2u` computes in unsigned and converts back to int: the step 2 is an int value,
// so the loop counts 0, 2, 4, 6 in each thread's own stripe.
// expect: race-free
__global__ void k(int* A) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < 8; i += 2u)
    A[8 * t + i] = t;
}
