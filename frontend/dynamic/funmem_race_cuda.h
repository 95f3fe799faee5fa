// funmem_race_cuda.h: the CUDA device API of the detector's CPU emulation (vector types,
// cuRAND, cooperative groups, GPUVerify's annotations, warp intrinsics, atomics, integer
// intrinsics, min and max), each built on the runtime of funmem_race_rt.h. Not a header
// of its own: CMake appends its text to funmem_race_rt.h's, and funmem-race-run writes
// the two as one file next to the instrumented kernel.

#define __syncthreads() ::fmr::barrier()
typedef unsigned int uint;
// Vector types (as funmem_cuda_min.h declares them).
#define FM_VECTOR_TYPES(T, N, A2, A4)                                                              \
  struct N##1 {                                                                                    \
    T x;                                                                                           \
  };                                                                                               \
  struct alignas(A2) N##2 {                                                                        \
    T x, y;                                                                                        \
  };                                                                                               \
  struct alignas(A4) N##4 {                                                                        \
    T x, y, z, w;                                                                                  \
  };                                                                                               \
  inline N##1 make_##N##1(T x) {                                                                   \
    return {x};                                                                                    \
  }                                                                                                \
  inline N##2 make_##N##2(T x, T y) {                                                              \
    return {x, y};                                                                                 \
  }                                                                                                \
  inline N##3 make_##N##3(T x, T y, T z) {                                                         \
    return {x, y, z};                                                                              \
  }                                                                                                \
  inline N##4 make_##N##4(T x, T y, T z, T w) {                                                    \
    return {x, y, z, w};                                                                           \
  }
struct char3 { char x, y, z; };
FM_VECTOR_TYPES(char, char, 2, 4)
struct uchar3 { unsigned char x, y, z; };
FM_VECTOR_TYPES(unsigned char, uchar, 2, 4)
struct short3 { short x, y, z; };
FM_VECTOR_TYPES(short, short, 4, 8)
struct ushort3 { unsigned short x, y, z; };
FM_VECTOR_TYPES(unsigned short, ushort, 4, 8)
struct int3 { int x, y, z; };
FM_VECTOR_TYPES(int, int, 8, 16)
FM_VECTOR_TYPES(unsigned int, uint, 8, 16)
struct longlong3 { long long x, y, z; };
FM_VECTOR_TYPES(long long, longlong, 16, 16)
struct ulonglong3 { unsigned long long x, y, z; };
FM_VECTOR_TYPES(unsigned long long, ulonglong, 16, 16)
struct float3 { float x, y, z; };
FM_VECTOR_TYPES(float, float, 8, 16)
struct double3 { double x, y, z; };
FM_VECTOR_TYPES(double, double, 16, 16)
// cuRAND's device API as funmem_cuda_min.h models it: the state (an MTGP32 state: the
// byte of the thread's index in its block mod 256) read and written.
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
inline void curand_init(unsigned long long seed, unsigned long long, unsigned long long,
                        curandState* s) {
  static_cast<curandState*>(::fmr::access(s, sizeof *s, ::fmr::Write, 0, 0))->d =
      static_cast<unsigned int>(seed);
}
inline unsigned int curand(curandState* s) {
  ::fmr::access(s, sizeof *s, ::fmr::Read, 0, 0);
  auto* w = static_cast<curandState*>(::fmr::access(s, sizeof *s, ::fmr::Write, 0, 0));
  return w->d = w->d * 1664525u + 1013904223u;
}
inline unsigned int curand(curandStateMtgp32* s) {
  unsigned t = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  char* b = reinterpret_cast<char*>(s) + t % 256;
  ::fmr::access(b, 1, ::fmr::Read, 0, 0);
  ::fmr::access(b, 1, ::fmr::Write, 0, 0);
  return t * 2654435761u;
}
template <class S> float curand_uniform(S* s) {
  return static_cast<float>(curand(s) % 1000 + 1) / 1000.0f;
}
template <class S> float curand_normal(S* s) {
  return static_cast<float>(curand(s) % 1000) / 500.0f - 1.0f;
}
template <class S> double curand_uniform_double(S* s) {
  return curand_uniform(s);
}
template <class S> double curand_normal_double(S* s) {
  return curand_normal(s);
}
// Cooperative groups: a thread block's barrier, and the grid's (an epoch of its own:
// blocks run one after another, so only the epochs order them).
namespace cooperative_groups {
struct thread_block {
  void sync() const { ::fmr::barrier(); }
};
struct grid_group {
  void sync() const {
    // Blocks run one after another: a block would not see what a later one stores
    // before the barrier, so a run with more than one block is not modelled.
    if (gridDim.x * gridDim.y * gridDim.z > 1) ::fmr::not_modelled("a grid barrier in a launch of more than one block");
    ++::fmr::grid_epoch;
    ::fmr::barrier();
  }
};
inline thread_block this_thread_block() {
  return {};
}
inline grid_group this_grid() {
  return {};
}
inline void synchronize(const thread_block& b) {
  b.sync();
}
inline void synchronize(const grid_group& g) {
  g.sync();
}
} // namespace cooperative_groups
// GPUVerify's annotations are specifications: they do not run (their arguments, where
// the predicates such as __implies or __enabled appear, are dropped with them).
#define __requires(...) ((void)0)
// Clang's hint, whose operand is not evaluated (GCC has no such builtin).
#define __builtin_assume(...) ((void)0)
#define __builtin_unpredictable(x) (x)
#define __ensures(...) ((void)0)
#define __assert(...) ((void)0)
#define __assume(...) ((void)0)
#define __axiom(...) ((void)0)
#define __invariant(...) ((void)0)
#define __global_invariant(...) ((void)0)
#define __global_requires(...) ((void)0)
#define __global_ensures(...) ((void)0)
#define __global_assert(...) ((void)0)
#define __candidate_invariant(...) ((void)0)
#define __candidate_global_invariant(...) ((void)0)
#define __function_wide_invariant(...) ((void)0)
#define __requires_fresh_array(...) ((void)0)
/// Mutant schemata: the kernel mutator's switches.
inline bool fm_mutant(long k) {
  return fmr::m(k);
}
inline void __syncwarp(unsigned int mask = 0xffffffffu) {
  fmr::warp_barrier(mask);
}
// Warp shuffles (the mask is taken as the whole warp; `width` segments the warp).
template <class T> T __shfl_sync(unsigned int, T v, int src, int width = 32) {
  long l = fmr::lane();
  return fmr::shuffle(v, l / width * width + ((src % width) + width) % width);
}
template <class T> T __shfl_down_sync(unsigned int, T v, unsigned int d, int width = 32) {
  long l = fmr::lane(), s = l + static_cast<long>(d);
  return fmr::shuffle(v, s / width == l / width ? s : l);
}
template <class T> T __shfl_up_sync(unsigned int, T v, unsigned int d, int width = 32) {
  long l = fmr::lane(), s = l - static_cast<long>(d);
  return fmr::shuffle(v, s >= 0 && s / width == l / width ? s : l);
}
// As PTX's shfl.bfly: a lane in the caller's segment or an earlier one is read, a later
// one gives the caller's own value.
template <class T> T __shfl_xor_sync(unsigned int, T v, int m, int width = 32) {
  long l = fmr::lane();
  unsigned long s = static_cast<unsigned>(l) ^ static_cast<unsigned>(m);
  return fmr::shuffle(v, s <= static_cast<unsigned long>(l / width * width + width - 1)
                             ? static_cast<long>(s)
                             : l);
}
// Integer and conversion intrinsics (as funmem_cuda_min.h declares them); `clock()` is
// the C library's.
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) { unsigned r = 0; for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i); return r; }
inline unsigned long long __brevll(unsigned long long x) { unsigned long long r = 0; for (int i = 0; i < 64; ++i) r |= ((x >> i) & 1ull) << (63 - i); return r; }
inline int __mul24(int a, int b) { return static_cast<int>(static_cast<long long>((a << 8) >> 8) * ((b << 8) >> 8)); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32); }
inline unsigned __sad(int a, int b, unsigned c) { return static_cast<unsigned>(a > b ? static_cast<long long>(a) - b : static_cast<long long>(b) - a) + c; }
inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }
// The device's conversions (PTX cvt.*i.s32.f32) saturate and take NaN to 0.
inline int fmr_float2int(float r) {
  if (std::isnan(r)) return 0;
  if (r >= 2147483647.0f) return 2147483647;
  if (r <= -2147483648.0f) return -2147483647 - 1;
  return static_cast<int>(r);
}
inline int __float2int_rn(float f) { return fmr_float2int(std::nearbyint(f)); }
inline int __float2int_rz(float f) { return fmr_float2int(std::trunc(f)); }
inline int __float2int_rd(float f) { return fmr_float2int(std::floor(f)); }
inline int __float2int_ru(float f) { return fmr_float2int(std::ceil(f)); }
inline float __int2float_rn(int i) { return static_cast<float>(i); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline long long clock64() { return static_cast<long long>(fmr::work_done.load()); }
/// A load through the read-only cache: a read of *p.
template <class T> T __ldg(const T* p) { return *fmr::rd(p, 0, 0); }
inline void __threadfence() {}
inline void __threadfence_block() {}
// Every atomic that funmem_cuda_min.h declares (the extractor's header), each recorded
// with its own width: CUDA's semantics, one lock for all.
#define FMR_ATOMIC(name, T, expr)                                                            \
  inline T name(T* p, T v) {                                                                 \
    return fmr::atomic(p, [&](T o) { return static_cast<T>(expr); });                        \
  }
#define FMR_ATOMIC_ARITH(T)                                                                  \
  FMR_ATOMIC(atomicAdd, T, o + v)                                                            \
  FMR_ATOMIC(atomicExch, T, v)
#define FMR_ATOMIC_INT(T)                                                                    \
  FMR_ATOMIC(atomicAdd, T, o + v)                                                            \
  FMR_ATOMIC(atomicExch, T, v)                                                               \
  FMR_ATOMIC(atomicMin, T, o < v ? o : v)                                                    \
  FMR_ATOMIC(atomicMax, T, o > v ? o : v)                                                    \
  FMR_ATOMIC(atomicAnd, T, o & v)                                                            \
  FMR_ATOMIC(atomicOr, T, o | v)                                                             \
  FMR_ATOMIC(atomicXor, T, o ^ v)                                                            \
  inline T atomicCAS(T* p, T c, T v) {                                                       \
    return fmr::atomic(p, [&](T o) { return o == c ? v : o; });                              \
  }
FMR_ATOMIC_INT(int)
FMR_ATOMIC_INT(unsigned int)
FMR_ATOMIC_INT(unsigned long long)
FMR_ATOMIC_ARITH(float)
FMR_ATOMIC(atomicAdd, double, o + v)
FMR_ATOMIC(atomicSub, int, o - v)
FMR_ATOMIC(atomicSub, unsigned int, o - v)
FMR_ATOMIC(atomicInc, unsigned int, o >= v ? 0u : o + 1)
FMR_ATOMIC(atomicDec, unsigned int, o == 0 || o > v ? v : o - 1)
#undef FMR_ATOMIC_INT
#undef FMR_ATOMIC_ARITH
#undef FMR_ATOMIC
// CUDA's min/max overloads (as funmem_cuda_min.h declares them): both arguments in the
// result's type.
#define FMR_MINMAX(R, A, B)                                                                 \
  inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }                              \
  inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
FMR_MINMAX(int, int, int)
FMR_MINMAX(unsigned int, unsigned int, unsigned int)
FMR_MINMAX(unsigned int, int, unsigned int)
FMR_MINMAX(unsigned int, unsigned int, int)
FMR_MINMAX(long, long, long)
FMR_MINMAX(unsigned long, unsigned long, unsigned long)
FMR_MINMAX(unsigned long, long, unsigned long)
FMR_MINMAX(unsigned long, unsigned long, long)
FMR_MINMAX(long long, long long, long long)
FMR_MINMAX(unsigned long long, unsigned long long, unsigned long long)
FMR_MINMAX(unsigned long long, long long, unsigned long long)
FMR_MINMAX(unsigned long long, unsigned long long, long long)
// abs of every integer and floating type, as CUDA's headers declare it (the C library's
// ::abs takes an int only).
using std::abs;
// Floating-point min and max are fminf and fmaxf: a NaN argument gives the other one.
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
FMR_MINMAX(double, float, double)
FMR_MINMAX(double, double, float)
#undef FMR_MINMAX
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
