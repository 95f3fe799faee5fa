// The loop's bound grows in its body: thread t writes a[2t] and then a[2t + 1], a[2t + 2]
// ... while the bound allows, reaching its right neighbour's a[2t + 2]. The extractor
// once summarised the loop with the bound's value before the loop (k < 2t + 2, the
// thread's own two elements) and called the kernel race-free; now the loop is one of any
// number of iterations, with k any value in its body.
// expect: race
__global__ void k(int* a) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int end = 2 * t + 2;
  for (int k = 2 * t; k < end; k++) {
    a[k] = 1;
    if (k == 2 * t) end = end + 1;
  }
}
