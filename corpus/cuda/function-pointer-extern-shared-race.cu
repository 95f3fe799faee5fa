// Both extern __shared__ arrays start at the same address, so s2[0] holds racy's
// address: every thread calls racy, threads 0 and 1 write a[0].
// expect: race
__device__ void racy(int* p) { p[0] = threadIdx.x; }
__device__ void safe(float* p) { p[threadIdx.x + blockIdx.x * blockDim.x] = 1; }
__global__ void k(float* a) {
  extern __shared__ void (*s1[])(int*);
  extern __shared__ void (*s2[])(float*);
  if (threadIdx.x == 0) s1[0] = racy;
  if (threadIdx.x == 1) s2[1] = safe;
  __syncthreads();
  s2[0](a);
}
