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
#define __align__(n) __attribute__((aligned(n)))
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
#define NULL __null
typedef unsigned int uint;
// Vector types (CUDA's alignments) and their constructors: values, no memory.
#define FM_VECTOR_TYPES(T, N, A2, A4)                                                              \
  struct N##1 {                                                                                    \
    T x;                                                                                           \
  };                                                                                               \
  struct __attribute__((aligned(A2))) N##2 {                                                       \
    T x, y;                                                                                        \
  };                                                                                               \
  struct __attribute__((aligned(A4))) N##4 {                                                       \
    T x, y, z, w;                                                                                  \
  };                                                                                               \
  __host__ __device__ N##1 make_##N##1(T);                                                         \
  __host__ __device__ N##2 make_##N##2(T, T);                                                      \
  __host__ __device__ N##3 make_##N##3(T, T, T);                                                   \
  __host__ __device__ N##4 make_##N##4(T, T, T, T);
struct char3 {
  char x, y, z;
};
FM_VECTOR_TYPES(char, char, 2, 4)
struct uchar3 {
  unsigned char x, y, z;
};
FM_VECTOR_TYPES(unsigned char, uchar, 2, 4)
struct short3 {
  short x, y, z;
};
FM_VECTOR_TYPES(short, short, 4, 8)
struct ushort3 {
  unsigned short x, y, z;
};
FM_VECTOR_TYPES(unsigned short, ushort, 4, 8)
struct int3 {
  int x, y, z;
};
FM_VECTOR_TYPES(int, int, 8, 16)
FM_VECTOR_TYPES(unsigned int, uint, 8, 16)
struct longlong3 {
  long long x, y, z;
};
FM_VECTOR_TYPES(long long, longlong, 16, 16)
struct ulonglong3 {
  unsigned long long x, y, z;
};
FM_VECTOR_TYPES(unsigned long long, ulonglong, 16, 16)
struct float3 {
  float x, y, z;
};
FM_VECTOR_TYPES(float, float, 8, 16)
struct double3 {
  double x, y, z;
};
FM_VECTOR_TYPES(double, double, 16, 16)
// Textures: read-only memory (a texture reference is read, never written).
enum cudaTextureReadMode { cudaReadModeElementType, cudaReadModeNormalizedFloat };
template <class T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((device_builtin_texture_type)) texture {
  int fm_handle;
};
template <class T> __device__ T tex1Dfetch(texture<T, 1, cudaReadModeElementType>, int);
template <class T, enum cudaTextureReadMode m> __device__ T tex1D(texture<T, 1, m>, float);
template <class T, enum cudaTextureReadMode m> __device__ T tex2D(texture<T, 2, m>, float, float);
// 24-bit multiplications: the product when both operands fit in 24 bits.
__device__ int __mul24(int, int);
__device__ unsigned int __umul24(unsigned int, unsigned int);
// cuRAND's device API: a generator call reads and writes its state; curand_init writes
// it. An MTGP32 state serves the threads of one block, at most 256 of them: a call is
// modelled as an update of the state's byte (thread index in the block) mod 256, so
// that two threads 256 apart, or two blocks, using one state race (docs/extract.md).
struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandState;
typedef struct curandStateXORWOW curandState_t;
struct curandStateMtgp32 {
  unsigned int s[1024];
  int offset, pIdx;
};
typedef struct curandStateMtgp32 curandStateMtgp32_t;
__device__ void curand_init(unsigned long long, unsigned long long, unsigned long long,
                            curandState*);
__device__ unsigned int curand(curandState*);
__device__ float curand_uniform(curandState*);
__device__ float curand_normal(curandState*);
__device__ double curand_uniform_double(curandState*);
__device__ double curand_normal_double(curandState*);
__device__ unsigned int curand(curandStateMtgp32*);
__device__ float curand_uniform(curandStateMtgp32*);
__device__ float curand_normal(curandStateMtgp32*);
// Cooperative groups: a thread block's and the grid's barriers.
namespace cooperative_groups {
struct thread_block {
  __device__ void sync() const;
};
struct grid_group {
  __device__ void sync() const;
};
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
__device__ void synchronize(const thread_block&);
__device__ void synchronize(const grid_group&);
} // namespace cooperative_groups
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
__device__ unsigned int atomicSub(unsigned int*, unsigned int);
__device__ unsigned int atomicExch(unsigned int*, unsigned int);
__device__ unsigned int atomicMin(unsigned int*, unsigned int);
__device__ unsigned int atomicMax(unsigned int*, unsigned int);
__device__ unsigned int atomicCAS(unsigned int*, unsigned int, unsigned int);
__device__ unsigned long long atomicAdd(unsigned long long*, unsigned long long);
__device__ unsigned long long atomicExch(unsigned long long*, unsigned long long);
__device__ unsigned long long atomicMin(unsigned long long*, unsigned long long);
__device__ unsigned long long atomicMax(unsigned long long*, unsigned long long);
__device__ unsigned long long atomicCAS(unsigned long long*, unsigned long long,
                                        unsigned long long);
__device__ int atomicAnd(int*, int);
__device__ int atomicOr(int*, int);
__device__ int atomicXor(int*, int);
__device__ unsigned int atomicAnd(unsigned int*, unsigned int);
__device__ unsigned int atomicOr(unsigned int*, unsigned int);
__device__ unsigned int atomicXor(unsigned int*, unsigned int);
__device__ unsigned long long atomicAnd(unsigned long long*, unsigned long long);
__device__ unsigned long long atomicOr(unsigned long long*, unsigned long long);
__device__ unsigned long long atomicXor(unsigned long long*, unsigned long long);
__device__ unsigned int atomicInc(unsigned int*, unsigned int);
__device__ unsigned int atomicDec(unsigned int*, unsigned int);
extern "C" __device__ void* memcpy(void*, const void*, size_t);
extern "C" __device__ void* memset(void*, int, size_t);
// Warp shuffles for every type CUDA declares them for.
__device__ int __shfl_sync(unsigned int, int, int, int = 32);
__device__ unsigned int __shfl_sync(unsigned int, unsigned int, int, int = 32);
__device__ long __shfl_sync(unsigned int, long, int, int = 32);
__device__ unsigned long __shfl_sync(unsigned int, unsigned long, int, int = 32);
__device__ long long __shfl_sync(unsigned int, long long, int, int = 32);
__device__ unsigned long long __shfl_sync(unsigned int, unsigned long long, int, int = 32);
__device__ float __shfl_sync(unsigned int, float, int, int = 32);
__device__ double __shfl_sync(unsigned int, double, int, int = 32);
__device__ int __shfl_up_sync(unsigned int, int, unsigned int, int = 32);
__device__ unsigned int __shfl_up_sync(unsigned int, unsigned int, unsigned int, int = 32);
__device__ long __shfl_up_sync(unsigned int, long, unsigned int, int = 32);
__device__ unsigned long __shfl_up_sync(unsigned int, unsigned long, unsigned int, int = 32);
__device__ long long __shfl_up_sync(unsigned int, long long, unsigned int, int = 32);
__device__ unsigned long long __shfl_up_sync(unsigned int, unsigned long long, unsigned int, int = 32);
__device__ float __shfl_up_sync(unsigned int, float, unsigned int, int = 32);
__device__ double __shfl_up_sync(unsigned int, double, unsigned int, int = 32);
__device__ int __shfl_down_sync(unsigned int, int, unsigned int, int = 32);
__device__ unsigned int __shfl_down_sync(unsigned int, unsigned int, unsigned int, int = 32);
__device__ long __shfl_down_sync(unsigned int, long, unsigned int, int = 32);
__device__ unsigned long __shfl_down_sync(unsigned int, unsigned long, unsigned int, int = 32);
__device__ long long __shfl_down_sync(unsigned int, long long, unsigned int, int = 32);
__device__ unsigned long long __shfl_down_sync(unsigned int, unsigned long long, unsigned int, int = 32);
__device__ float __shfl_down_sync(unsigned int, float, unsigned int, int = 32);
__device__ double __shfl_down_sync(unsigned int, double, unsigned int, int = 32);
__device__ int __shfl_xor_sync(unsigned int, int, int, int = 32);
__device__ unsigned int __shfl_xor_sync(unsigned int, unsigned int, int, int = 32);
__device__ long __shfl_xor_sync(unsigned int, long, int, int = 32);
__device__ unsigned long __shfl_xor_sync(unsigned int, unsigned long, int, int = 32);
__device__ long long __shfl_xor_sync(unsigned int, long long, int, int = 32);
__device__ unsigned long long __shfl_xor_sync(unsigned int, unsigned long long, int, int = 32);
__device__ float __shfl_xor_sync(unsigned int, float, int, int = 32);
__device__ double __shfl_xor_sync(unsigned int, double, int, int = 32);
// CUDA's min/max overloads (crt/math_functions.hpp): a signed and an unsigned argument of
// one width compare in the unsigned type; umin, llmin, ullmin... name one of them.
#define FM_MINMAX(R, A, B)                                                                  \
  __device__ R min(A, B);                                                                    \
  __device__ R max(A, B);
FM_MINMAX(int, int, int)
FM_MINMAX(unsigned int, unsigned int, unsigned int)
FM_MINMAX(unsigned int, int, unsigned int)
FM_MINMAX(unsigned int, unsigned int, int)
FM_MINMAX(long, long, long)
FM_MINMAX(unsigned long, unsigned long, unsigned long)
FM_MINMAX(unsigned long, long, unsigned long)
FM_MINMAX(unsigned long, unsigned long, long)
FM_MINMAX(long long, long long, long long)
FM_MINMAX(unsigned long long, unsigned long long, unsigned long long)
FM_MINMAX(unsigned long long, long long, unsigned long long)
FM_MINMAX(unsigned long long, unsigned long long, long long)
FM_MINMAX(float, float, float)
FM_MINMAX(double, double, double)
FM_MINMAX(double, float, double)
FM_MINMAX(double, double, float)
#undef FM_MINMAX
__device__ unsigned int umin(unsigned int, unsigned int);
__device__ unsigned int umax(unsigned int, unsigned int);
__device__ long long llmin(long long, long long);
__device__ long long llmax(long long, long long);
__device__ unsigned long long ullmin(unsigned long long, unsigned long long);
__device__ unsigned long long ullmax(unsigned long long, unsigned long long);
__device__ double fmin(double, double);
__device__ double fmax(double, double);
__device__ float fminf(float, float);
__device__ float fmaxf(float, float);
__device__ float sqrtf(float);
__device__ float expf(float);
__device__ float logf(float);
__device__ float fabsf(float);
__device__ int abs(int);
__device__ long abs(long);
__device__ long long abs(long long);
__device__ float abs(float);
__device__ double abs(double);
__device__ long labs(long);
__device__ long long llabs(long long);
__device__ double sqrt(double);
__device__ double exp(double);
__device__ double fabs(double);
__device__ float __expf(float);
__device__ float __exp10f(float);
__device__ float __logf(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __powf(float, float);
__device__ float __fdividef(float, float);
__device__ float rsqrtf(float);
__device__ float sinf(float);
__device__ float cosf(float);
__device__ float powf(float, float);
__device__ float floorf(float);
__device__ float ceilf(float);
__device__ double sin(double);
__device__ double cos(double);
__device__ double pow(double, double);
__device__ double log(double);
__device__ int __clz(int);
__device__ int __popc(unsigned int);
__device__ int __ffs(int);
__device__ unsigned int __brev(unsigned int);
__device__ int __clzll(long long);
__device__ int __popcll(unsigned long long);
__device__ int __ffsll(long long);
__device__ unsigned long long __brevll(unsigned long long);
__device__ int __mulhi(int, int);
__device__ unsigned int __umulhi(unsigned int, unsigned int);
__device__ unsigned int __sad(int, int, unsigned int);
__device__ unsigned int __usad(unsigned int, unsigned int, unsigned int);
__device__ int __float2int_rn(float);
__device__ int __float2int_rz(float);
__device__ int __float2int_rd(float);
__device__ int __float2int_ru(float);
__device__ float __int2float_rn(int);
__device__ long clock();
__device__ long long clock64();
// A load through the read-only cache: a read of *p.
template <class T> __device__ T __ldg(const T* p) { return *p; }
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
FM_SPEC void __requires_fresh_array(const volatile void*);
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
// `__return_val_funptr(funcType)`: the function pointer a function returns.
template <class T> FM_SPEC T __return_val_funptr_of();
#define __return_val_funptr(T) __return_val_funptr_of<T>()
FM_SPEC bool __mod_pow2(unsigned int);
FM_SPEC bool __read(const volatile void*);
FM_SPEC bool __write(const volatile void*);
FM_SPEC bool __no_read(const volatile void*);
FM_SPEC bool __no_write(const volatile void*);
FM_SPEC bool __read_implies(const volatile void*, bool);
FM_SPEC bool __write_implies(const volatile void*, bool);
FM_SPEC int __read_offset_bytes(const volatile void*);
FM_SPEC int __write_offset_bytes(const volatile void*);
FM_SPEC int __ptr_offset_bytes(const volatile void*);
FM_SPEC const volatile void* __ptr_base(const volatile void*);
