// funmem_rt_model.h: what funmem-extract parses generated kernels with in place of
// codegen/funmem_cuda_rt.h (translation validation, verifier/validate.h). The
// declarations the kernels use, without bodies: the extractor knows fm_ld / fm_st as
// loads and stores of a memory block (`fm_mem`) and fm_add / fm_sub / fm_mul / fm_neg
// / fm_div / fm_mod / fm_min / fm_max / fm_bound / fm_i32 as the arithmetic they check.
// tests/frontend/model/rt_model_test.cpp keeps it equal to the runtime: every FM_HD
// function with its signature, the phase macros of the nvcc branch, fm_cell and fm_mem.
#pragma once
typedef long int64_t;
typedef int int32_t;
typedef unsigned long uint64_t;
#define INT64_C(c) c##L
#define INT32_MAX 2147483647
#define NAN __builtin_nanf("")
#define INFINITY __builtin_inff()
#define FM_HD __host__ __device__
// A memory block: only its type matters to the extractor (kernels pass it by value);
// its count `n` bounds the loads of a parametric kernel's tiles.
struct fm_cell {
  unsigned char bytes[8];
};
struct fm_mem {
  fm_cell* p;
  int64_t n;
};
// The phases of a parametric kernel as nvcc sees them: a block's threads, one each.
#define FM_SHARED_CELLS extern __shared__ fm_cell fm_smem[]
#define FM_THREADS
#define FM_TID threadIdx.x
#define FM_TY threadIdx.y
#define FM_TX threadIdx.x
#define FM_TID2 (threadIdx.y * blockDim.x + threadIdx.x)
#define FM_SYNC() __syncthreads()
#define FM_MAXNREG(n)
FM_HD void fm_fail(int site);
FM_HD int64_t fm_add(int64_t a, int64_t b, int site);
FM_HD int64_t fm_sub(int64_t a, int64_t b, int site);
FM_HD int64_t fm_mul(int64_t a, int64_t b, int site);
FM_HD bool fm_divisible(int64_t a, int64_t b, int div_site, int ovf_site);
FM_HD int64_t fm_div(int64_t a, int64_t b, int div_site, int ovf_site);
FM_HD int64_t fm_mod(int64_t a, int64_t b, int div_site, int ovf_site);
FM_HD int64_t fm_neg(int64_t a, int site);
FM_HD int64_t fm_abs(int64_t a, int site);
FM_HD int32_t fm_i32(int64_t a, int site);
FM_HD int64_t fm_f2i(double v, double lim, int site);
FM_HD int64_t fm_bound(int64_t n, int site);
template <class T> FM_HD T fm_min(T a, T b);
template <class T> FM_HD T fm_max(T a, T b);
template <class T> FM_HD T fm_select(bool c, T a, T b);
template <class T> FM_HD T fm_ld(fm_mem m, int64_t i, int site);
template <class T> FM_HD void fm_st(fm_mem m, int64_t i, T v, int site);
template <class T>
FM_HD T fm_ld_tile(fm_mem m, int64_t i, int site, const fm_cell* tile, int64_t start,
                   int64_t len);
template <class T> FM_HD T fm_sld(const fm_cell* s, int64_t cell);
template <class T> FM_HD void fm_sst(fm_cell* s, int64_t cell, T v);
template <class T>
FM_HD T fm_ld_tile2(fm_mem m, int64_t i, int site, const fm_cell* tile, int64_t cell,
                    int64_t use);
__device__ float fmodf(float, float);
__device__ double fmod(double, double);
__device__ float fabsf(float);
__device__ double fabs(double);
