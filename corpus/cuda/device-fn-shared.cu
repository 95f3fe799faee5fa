// A device function writes a file-scope __shared__ array.
// expect: race
__shared__ int sbuf[32];
__device__ void put(int v) {
  sbuf[1] = v;
}
__global__ void k(int* out) {
  put(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = sbuf[1];
}
