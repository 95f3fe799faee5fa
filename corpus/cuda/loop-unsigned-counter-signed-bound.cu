// `i < n` with an unsigned counter converts a negative n to a huge bound: with n = -1 the
// loop runs five times and threads 0 and 1 both write out[0]. The bound's conversion was
// checked under the counter's facts (which a wrapped bound makes impossible), so the loop
// looked empty and the kernel race-free.
// expect: race
__global__ void k(int* out, int n) {
  __requires(n < 0);
  for (unsigned i = 4294967290u; i < n; i++)
    out[0] = threadIdx.x;
}
