// Each thread writes the element a __constant__ table names. The table's initial values
// are a permutation, but the host may change __constant__ and __device__ variables
// (cudaMemcpyToSymbol), so the kernel is checked for every table, as for every buffer
// content: two threads given the same entry write the same element. The detector
// observes it with the table zero-filled.
// expect: race
__constant__ int perm[8] = {3, 1, 4, 0, 6, 2, 7, 5};

__global__ void k(int* out) {
  if (threadIdx.x < 8) out[blockIdx.x * 8 + perm[threadIdx.x]] = threadIdx.x;
}
