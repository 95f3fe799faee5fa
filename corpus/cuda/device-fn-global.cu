// A device function without pointer arguments writes a __device__ array.
// expect: race
__device__ int buf[32];
__device__ void put(int v) {
  buf[0] = v;
}
__global__ void k() {
  put(threadIdx.x);
}
