// Enumerators (plain, with a fixed type, scoped) are constants: no memory. They made a
// kernel unsupported ("the lvalue 'P2'").
// expect: race-free
enum P { P1 = 1, P2 = 2 };
enum class Q : unsigned char { A = 1, B = 3 };
__global__ void k(int* out) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  P p = P2;
  if (g >= P1) out[g * p + (int)Q::B] = 1;
}
