// One block. Its thread 1024 does not exist: CUDA launches at most 1024 threads per block,
// so the write of the first thread meets no other. A race witness must be a launch CUDA
// can make; the static questions do not use the limit, so the verdict is not decided.
// expect: race-free
//--gridDim=[1]
// currently: unknown (the questions do not use CUDA's limit on a block's threads)
__global__ void k(int* flag) {
  if (threadIdx.x == 0) flag[0] = 1;
  if (threadIdx.x == 1024) flag[0] = 2;
}
