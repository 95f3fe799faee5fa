// A while loop whose trip count is read from memory: each thread writes its own element
// in every iteration, whatever the count (the loop runs any number of times).
// expect: race-free
__global__ void k(int* a, const int* steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int s = steps[i];
  while (s > 0) {
    a[i] = a[i] + s;
    s = s - 1;
  }
}
