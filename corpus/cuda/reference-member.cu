// A structure with a reference member: `s.r = ...` stores through the reference into
// a[0], from every thread. The extractor once took `s.r` for bytes of the local `s` and
// called the kernel race-free; a reference member is not followed: unsupported.
// expect: race
struct S {
  int& r;
};
__global__ void k(int* a) {
  S s{a[0]};
  s.r = threadIdx.x;
}
