// A reference parameter is a pointer: set(p[0], ...) writes p[0] in every thread.
// expect: race
__device__ void set(int& r, int v) {
  r = v;
}
__global__ void k(int* p) {
  set(p[0], threadIdx.x);
}
