// `threadIdx.x - 1 >= 0` is always true in unsigned arithmetic, so thread 0 takes the
// branch too and stores at index 2^32 - 1 + 1 = 0 (the sum wraps back), where thread 1
// stores as well.
// expect: race
//--blockDim=[32] --gridDim=[1]
__global__ void k(int* out) {
  if (threadIdx.x - 1 >= 0) out[threadIdx.x - 1 + (threadIdx.x == 0 ? 1u : 0u)] = 1;
}
