// A call through a pointer to member function: S::bad writes a[0] in every thread. The
// extractor once crashed on it; it is unsupported (and running it shows the race).
// expect: race
struct S {
  int* a;
  __device__ void bad() { a[0] = 1; }
};
__global__ void k(int* A) {
  S s{A};
  void (S::*m)() = &S::bad;
  (s.*m)();
}
