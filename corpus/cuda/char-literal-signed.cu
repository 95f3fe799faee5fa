// Where char is signed, '\xff' is -1 (not 255): ('\xff' + 1) * g is 0 for every thread,
// which all write out[0]. A character literal was read as its code unit.
// expect: race
__global__ void k(int* out) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  out[('\xff' + 1) * g] = g;
}
