// A conversion to `unsigned char` wraps: threads t and t + 256 write the same element.
// The model's polynomial is C's value only below 256, which the launch does not give.
// expect: race
//--blockDim=[512] --gridDim=[1]
__global__ void k(int* out) {
  __shared__ int A[512];
  A[(unsigned char)threadIdx.x] = 1;
  out[threadIdx.x] = A[threadIdx.x];
}
