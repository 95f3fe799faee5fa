// A method of the base structure writes through the base's `p`, hidden in the derived
// structure by a member of the same name: the base's buffer, where threads t and t + 1
// write one element (`t / 2`).
// expect: race
struct B {
  int* p;
  __device__ void put(int t) { p[t / 2] = t; }
};
struct D : B {
  int* p;
};
__global__ void k(D q) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  q.p[t] = 1;
  q.put(t);
}
