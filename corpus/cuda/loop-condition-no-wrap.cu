//--blockDim=4 --gridDim=1
// `k + 1 < 3` from 0: no wrap at any value the condition is evaluated at (0, 1, 2), and
// each thread writes its own element of each row.
// expect: race-free
__global__ void k(int* A) {
  for (unsigned k = 0; k + 1 < 3; k++)
    A[k * blockDim.x + threadIdx.x] = k;
}
