// A generated kernel (funmem-race-fuzz --generate, seed 100, kernel 40, shrunk): the two
// `extern __shared__` arrays are one object; thread t reads byte t of it through dsh2
// and may write bytes 4t..4t+3 through dsh1 in a function reached through a pointer.
// Thread 0's write and thread 1's read race. It was race-free while the `?:` on the
// unsigned literal 4294967295u made the model's facts contradictory.
// expect: race
struct T_g100_40 {};
__device__ void fa5_g100_40(unsigned* q, int i, T_g100_40) { ; }
__device__ void fb6_g100_40(unsigned* q, int i, T_g100_40) { q[i] ^= 2; }
__global__ void g100_40(unsigned short* p0, short* p1, signed char* p2, unsigned short s0) {
  extern __shared__ unsigned dsh1_g100_40[];
  extern __shared__ signed char dsh2_g100_40[];
  signed char v3_g100_40 = (unsigned)((((((int)threadIdx.z * (int)blockDim.y + (int)threadIdx.y) * (int)blockDim.x + (int)threadIdx.x) * 3) ^ 1));
  int v4_g100_40 = p0[((static_cast<signed char>(0) ? (-1) : 4294967295u) % 4096)];
  { void (*fp)(unsigned*, int, T_g100_40) = ((-(p0[(((s0 >> 30) ? (s0 ? 64 : s0) : (s0 ? s0 : blockDim.x)) % 4096)] >= dsh2_g100_40[(((int)threadIdx.z * (int)blockDim.y + (int)threadIdx.y) * (int)blockDim.x + (int)threadIdx.x)])) >= v3_g100_40) ? &fa5_g100_40 : fb6_g100_40; fp(dsh1_g100_40, (short)((((int)threadIdx.z * (int)blockDim.y + (int)threadIdx.y) * (int)blockDim.x + (int)threadIdx.x)), T_g100_40{}); }
}
