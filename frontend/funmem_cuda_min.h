// funmem_cuda_min.h: the minimal CUDA declarations funmem-extract parses kernels with
// (clang -x cuda --cuda-device-only -nocudainc -nocudalib), so that no CUDA
// installation is needed. Built-in variables are plain structures: the extractor
// recognises `threadIdx.x` and its kin by name. Intrinsics are declared so that a
// kernel using them parses: the extractor models atomics, memcpy and memset as accesses
// and knows that the others (warp shuffles, fences, math) touch no memory.
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
typedef unsigned long size_t;
struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ dim3(unsigned int a = 1, unsigned int b = 1, unsigned int c = 1)
      : x(a), y(b), z(c) {}
};
extern __device__ const uint3 threadIdx;
extern __device__ const uint3 blockIdx;
extern __device__ const dim3 blockDim;
extern __device__ const dim3 gridDim;
extern __device__ const int warpSize;
__device__ void __syncthreads();
// The kernel mutator's switches (mutant schemata): no memory.
__device__ bool fm_mutant(long);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence();
__device__ int atomicAdd(int*, int);
__device__ unsigned int atomicAdd(unsigned int*, unsigned int);
__device__ float atomicAdd(float*, float);
__device__ double atomicAdd(double*, double);
__device__ int atomicSub(int*, int);
__device__ int atomicExch(int*, int);
__device__ float atomicExch(float*, float);
__device__ int atomicMin(int*, int);
__device__ int atomicMax(int*, int);
__device__ int atomicCAS(int*, int, int);
extern "C" __device__ void* memcpy(void*, const void*, size_t);
extern "C" __device__ void* memset(void*, int, size_t);
__device__ int __shfl_sync(unsigned int, int, int, int = 32);
__device__ float __shfl_sync(unsigned int, float, int, int = 32);
__device__ int __shfl_down_sync(unsigned int, int, unsigned int, int = 32);
__device__ float __shfl_down_sync(unsigned int, float, unsigned int, int = 32);
__device__ int __shfl_xor_sync(unsigned int, int, int, int = 32);
__device__ float __shfl_xor_sync(unsigned int, float, int, int = 32);
__device__ int min(int, int);
__device__ int max(int, int);
__device__ float fminf(float, float);
__device__ float fmaxf(float, float);
__device__ float sqrtf(float);
__device__ float expf(float);
__device__ float logf(float);
__device__ float fabsf(float);
__device__ int abs(int);
__device__ double sqrt(double);
__device__ double exp(double);
__device__ double fabs(double);
// GPUVerify's annotation language (its CUDA header's names): specifications, not code.
// The extractor neither executes nor trusts them (docs/extract.md): a precondition
// that it ignores can only add launches, so a verdict stays sound for plain CUDA.
// FM_SPEC marks them for the extractor.
#define FM_SPEC __device__ __attribute__((annotate("funmem-spec")))
FM_SPEC void __requires(bool);
FM_SPEC void __ensures(bool);
FM_SPEC void __assert(bool);
FM_SPEC void __assume(bool);
FM_SPEC void __axiom(bool);
FM_SPEC void __invariant(bool);
FM_SPEC void __global_invariant(bool);
FM_SPEC void __global_requires(bool);
FM_SPEC void __global_ensures(bool);
FM_SPEC void __global_assert(bool);
FM_SPEC void __candidate_invariant(bool);
FM_SPEC void __candidate_global_invariant(bool);
FM_SPEC void __function_wide_invariant(bool);
FM_SPEC void __requires_fresh_array(const void*);
FM_SPEC bool __implies(bool, bool);
FM_SPEC bool __enabled();
FM_SPEC bool __uniform_bool(bool);
FM_SPEC bool __uniform_int(int);
FM_SPEC bool __distinct_int(int);
FM_SPEC bool __distinct_bool(bool);
FM_SPEC bool __all(bool);
FM_SPEC bool __at_most_one(bool);
FM_SPEC bool __exclusive(bool);
FM_SPEC bool __same_group();
FM_SPEC int __other_int(int);
FM_SPEC bool __other_bool(bool);
FM_SPEC int __old_int(int);
FM_SPEC bool __old_bool(bool);
FM_SPEC int __return_val_int();
FM_SPEC bool __return_val_bool();
FM_SPEC void* __return_val_ptr();
FM_SPEC bool __mod_pow2(unsigned int);
FM_SPEC bool __read(const void*);
FM_SPEC bool __write(const void*);
FM_SPEC bool __no_read(const void*);
FM_SPEC bool __no_write(const void*);
FM_SPEC bool __read_implies(const void*, bool);
FM_SPEC bool __write_implies(const void*, bool);
FM_SPEC int __read_offset_bytes(const void*);
FM_SPEC int __write_offset_bytes(const void*);
FM_SPEC int __ptr_offset_bytes(const void*);
FM_SPEC const void* __ptr_base(const void*);
