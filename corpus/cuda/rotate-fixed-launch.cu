//xfail:NOT_ALL_VERIFIED
//--blockDim=8 --gridDim=1
// A rotation by one in place on one block of 8 threads: thread t reads a[(t + 1) % 8],
// which thread t + 1 overwrites. The witness search must pick the launch the header
// fixes (it used to try only sizes that contradicted it and answered unknown).
// expect: race
__global__ void rotate(int* a) {
  int t = threadIdx.x;
  int v = a[(t + 1) % 8];
  a[t] = v;
}
