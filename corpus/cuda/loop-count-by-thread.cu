// The count depends on the thread (thread t runs t iterations): threads 1 and 2 both
// write A[0]. The count of the thread whose start is smallest (thread 0: none) was
// taken for every thread's, which holds only where the end is the same for all.
// expect: race
__global__ void k(int* A) {
  for (int i = 0; i < threadIdx.x; i++)
    A[0] = i;
}
