// A 64-bit atomic and a 32-bit atomic on overlapping bytes race: the hardware orders
// atomics of one width on one address only. Thread 0 adds to the 8-byte counter, the
// others to its upper 4 bytes.
// expect: race
__global__ void k(unsigned long long* counter) {
  if (threadIdx.x == 0)
    atomicAdd(counter, 1ull);
  else
    atomicAdd(reinterpret_cast<unsigned int*>(counter) + 1, 1u);
}
