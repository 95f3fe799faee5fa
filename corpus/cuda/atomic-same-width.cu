// Atomics of one width on one address never race: every thread adds to one 8-byte
// counter and takes a 64-bit maximum of another.
// expect: race-free
__global__ void k(unsigned long long* counter, unsigned long long* top) {
  atomicAdd(counter, 1ull);
  atomicMax(top, static_cast<unsigned long long>(threadIdx.x));
}
