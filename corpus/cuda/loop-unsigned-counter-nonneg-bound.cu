//--blockDim=4 --gridDim=1
// An unsigned counter against a bound that cannot be negative: the bound converts
// exactly, each iteration writes its own row of a one-block grid.
// expect: race-free
__global__ void k(int* out, int n) {
  __requires(n >= 0 && n <= 1024 && gridDim.x == 1);
  for (unsigned i = 0; i < n; i++)
    out[i * blockDim.x + threadIdx.x] = i;
}
