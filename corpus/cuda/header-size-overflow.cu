//--blockDim=99999999999999999999 --gridDim=[2,18446744073709551616] -DN=4
// A GPUVerify header whose sizes do not fit in 64 bits: they give no launch fact (the
// kernel is checked for every launch), and reading the header neither fails nor stops
// the tools; the macro still reaches every compilation of the file. Each thread writes
// its own element.
// expect: race-free
__global__ void own(int* a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = N;
}
