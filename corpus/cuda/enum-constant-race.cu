// An enumerator of an unsigned fixed type: g * (E::Z - 1) is 0 for every thread (Z is 1),
// so every thread writes out[0].
// expect: race
enum class E : unsigned { Z = 1 };
__global__ void k(int* out) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  out[g * ((int)E::Z - 1)] = g;
}
