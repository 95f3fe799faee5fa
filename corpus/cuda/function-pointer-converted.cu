// A function called through a pointer of another type: `bad` takes a float pointer, the
// cast makes it callable as an FP, and its store of element 0 runs in every thread. The
// file converts a function's address between types, so a call through a pointer may
// reach any function whose address it takes.
// expect: race
typedef void (*FP)(int*, long);
__device__ void safe(int* a, long i) { a[i] = 1; }
__device__ void bad(float* a, long) { a[0] = 2.0f; }
__device__ FP keep = &safe;
__global__ void k(int* a) {
  ((FP)bad)(a, blockIdx.x * blockDim.x + threadIdx.x);
}
