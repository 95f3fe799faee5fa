// funmem_cuda_rt.h: the run-time support of the CUDA files funmem-cuda generates
// (docs/cuda.md). Compiled by nvcc it is a thin layer over the CUDA runtime; compiled
// as C++20 by g++/clang (no __CUDACC__) it is the CPU emulation: kernels run with
// OpenMP over blocks (threads of a block in order), cudaMalloc / cudaMemcpy work on
// host memory. Also: checked scalar operations (overflow, division, bounds, casts) that
// report the first failure with its source position, and the harness that reads the
// inputs, writes the results and times each launch.
//
// Data format (inputs on the file named by the first argument, or stdin; results on
// stdout), one item per line:
//   scalar NAME TYPE VALUE
//   mem NAME COUNT TYPE VALUE TYPE VALUE ...     (inputs: a type per element)
//   mem NAME COUNT random TYPE SEED              (inputs: COUNT seeded values in -8..8)
//   mem NAME COUNT TYPE VALUE VALUE ...          (results: one type for the block)
// Flags: --time (kernel and run times on stderr), --no-output (no results),
//   --tuning FILE (threshold values, `name=value` per line; also $FUNMEM_TUNING),
//   --threshold PATTERN=VALUE (glob over names, `*` = all; VALUE an integer or inf),
//   --log-thresholds (each distinct comparison `threshold NAME P COUNT` on stderr),
//   --tuning-tree (print the tuning forest and exit),
//   --param B=N / s=N (block size and thread granularity of parametric kernels; a
//   kernel nest's blocks are B0=N rows of B1=N threads),
//   --limit T=N / Z=N / R=N (threads, shared bytes per block, registers per thread).
// A tuning file may also hold `shape NAME=VALUE ... : FLAGS` lines (funmem-tune --model):
//   once the input is read, the line whose sizes are nearest the scalar inputs (equal,
//   or the least sum of |log2(1 + a) - log2(1 + b)|) gives its --param, --limit and
//   --threshold flags, under those of the command line; --time names it on stderr.
// TYPE is i64, i32, f64, f32 or bool; floats are written in C's hexadecimal form (%a),
// so that every value survives the round trip exactly. A run-time error prints
// `FILE:LINE:COL: error: KIND: ...` on stderr and exits with status 1.
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fnmatch.h>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#define FM_HD __host__ __device__
// Kernels written in phases (parametric variants): `FM_THREADS { ... FM_TID ... }` runs
// a phase in each of the block's threads (FM_TID its index in a one-dimensional block;
// in a two-dimensional one FM_TY, FM_TX its row and column, FM_TID2 its index row by
// row), FM_SYNC() is the barrier between phases, fm_smem the block's dynamic shared
// memory.
#define FM_SHARED_CELLS extern __shared__ fm_cell fm_smem[]
#define FM_THREADS
#define FM_TID threadIdx.x
#define FM_TY threadIdx.y
#define FM_TX threadIdx.x
#define FM_TID2 (threadIdx.y * blockDim.x + threadIdx.x)
#define FM_SYNC() __syncthreads()
#if __CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4)
#define FM_MAXNREG(n) __maxnreg__(n)
#else
#define FM_MAXNREG(n) // nvcc before 12.4 has no per-kernel cap: ptxas reports what it used
#endif
#else
// ----------------------------------------------------------------- CPU emulation
#include <atomic>
#define __global__
#define __device__
#define __host__
#define FM_HD
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
using cudaError_t = int;
constexpr cudaError_t cudaSuccess = 0;
constexpr cudaError_t cudaErrorMemoryAllocation = 2;
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
inline cudaError_t cudaMalloc(void** p, size_t bytes) {
  *p = std::malloc(bytes ? bytes : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaFree(void* p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind) {
  if (bytes) std::memcpy(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void* p, int v, size_t bytes) {
  if (bytes) std::memset(p, v, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() {
  return cudaSuccess;
}
inline cudaError_t cudaGetLastError() {
  return cudaSuccess;
}
inline const char* cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "out of memory";
}
inline thread_local bool fm_in_kernel = false;
/// A block's dynamic shared memory in the emulation (one per OpenMP thread).
inline thread_local std::vector<unsigned char> fm_emu_shared;
/// Runs `body` once per block, for kernels written in phases: FM_THREADS runs a phase
/// for every thread of the block in order (FM_TID the thread), so a phase ends for all threads
/// before the next begins, which is what FM_SYNC() (the barrier) guarantees on a GPU.
template <class F> void fm_emulate_blocks(dim3 grid, dim3 block, size_t shared, F&& body) {
  gridDim = grid;
  blockDim = block;
  const long blocks = static_cast<long>(grid.x) * static_cast<long>(grid.y);
#pragma omp parallel for schedule(dynamic, 1)
  for (long b = 0; b < blocks; ++b) {
    fm_in_kernel = true;
    fm_emu_shared.assign(shared, 0);
    blockIdx = dim3(static_cast<unsigned>(b % grid.x), static_cast<unsigned>(b / grid.x));
    body();
    fm_in_kernel = false;
  }
}
/// Runs `body` once per thread of the grid: blocks in parallel (OpenMP), the threads
/// of a block one after the other (kernels that are not written in phases use no
/// barriers).
template <class F> void fm_emulate(dim3 grid, dim3 block, F&& body) {
  fm_emulate_blocks(grid, block, 0, [&] {
    for (unsigned t = 0; t < blockDim.x * blockDim.y; ++t) {
      threadIdx = dim3(t % blockDim.x, t / blockDim.x);
      body();
    }
  });
}
#define FM_SHARED_CELLS fm_cell* fm_smem = reinterpret_cast<fm_cell*>(fm_emu_shared.data())
#define FM_THREADS for (unsigned fm_tid_ = 0; fm_tid_ < blockDim.x * blockDim.y; ++fm_tid_)
#define FM_TID fm_tid_
#define FM_TY (fm_tid_ / blockDim.x)
#define FM_TX (fm_tid_ % blockDim.x)
#define FM_TID2 fm_tid_
#define FM_SYNC() ((void)0)
#define FM_MAXNREG(n)
#endif

// Every CUDA call goes through FM_CUDA: a failure ends the run with the call's text.
#define FM_CUDA(call)                                                                              \
  do {                                                                                             \
    cudaError_t fm_e_ = (call);                                                                    \
    if (fm_e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s: error: resource: %s failed: %s\n", FM_FILE, #call,                 \
                   cudaGetErrorString(fm_e_));                                                     \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// The one launch macro: a kernel launch on the GPU, the emulation otherwise.
// A launch may write any block, so the host's cached page of device memory is dropped
// first (fm_host_ld).
#ifdef __CUDACC__
#define FM_LAUNCH(kernel, grid, block, ...)                                                        \
  do {                                                                                             \
    fm_host_cache().drop();                                                                        \
    kernel<<<(grid), (block)>>>(__VA_ARGS__);                                                      \
  } while (0)
#define FM_LAUNCH_BLOCKS(kernel, grid, block, shared, ...)                                         \
  do {                                                                                             \
    fm_host_cache().drop();                                                                        \
    kernel<<<(grid), (block), (shared)>>>(__VA_ARGS__);                                            \
  } while (0)
#else
#define FM_LAUNCH(kernel, grid, block, ...)                                                        \
  do {                                                                                             \
    fm_host_cache().drop();                                                                        \
    fm_emulate((grid), (block), [&] { kernel(__VA_ARGS__); });                                     \
  } while (0)
#define FM_LAUNCH_BLOCKS(kernel, grid, block, shared, ...)                                         \
  do {                                                                                             \
    fm_host_cache().drop();                                                                        \
    fm_emulate_blocks((grid), (block), static_cast<size_t>(shared), [&] { kernel(__VA_ARGS__); }); \
  } while (0)
#endif

/// A memory block: 8-byte cells, each holding one element of any scalar type.
struct fm_cell {
  unsigned char bytes[8];
};
struct fm_mem {
  fm_cell* p;
  int64_t n;
};

// ------------------------------------------------------------------ checks

/// Where checked operations are (filled by the generated file): site k is fm_sites[k-1].
struct fm_site {
  const char* kind; // bounds, overflow, division
  int line, col;
  const char* what;
};
#ifndef FM_BATCH
extern const char* const fm_file;
extern const fm_site fm_sites[];
#define FM_FILE fm_file
#define FM_SITES fm_sites
#else
// Several generated files in one executable (FM_BATCH: the emulation batches of
// build_emulation_batch): each file's tables are its own, in a namespace, and the
// batch's `main` points these at the tables of the file it runs.
inline const char* fm_batch_file = nullptr;
inline const fm_site* fm_batch_sites = nullptr;
#define FM_FILE fm_batch_file
#define FM_SITES fm_batch_sites
#endif

/// A threshold of the tuning forest (filled by the generated file): `if P >= T` runs
/// `version`, else the branch goes on to the thresholds whose parent it is, or runs
/// `otherwise`.
struct fm_threshold_info {
  const char* name;
  int parent; // index of the threshold on whose false side this one is; -1: a root
  int64_t def;
  const char* p;         // the parallelism compared, as text
  const char* version;   // chosen when P >= T
  const char* otherwise; // run when this is the last threshold and P < T
  const char* where;
};
#ifndef FM_BATCH
extern const fm_threshold_info fm_thresholds_info[];
extern const int fm_thresholds_count;
#define FM_THRESHOLDS_INFO fm_thresholds_info
#define FM_THRESHOLDS_COUNT fm_thresholds_count
#else
inline const fm_threshold_info* fm_batch_thresholds_info = nullptr;
inline int fm_batch_thresholds_count = 0;
#define FM_THRESHOLDS_INFO fm_batch_thresholds_info
#define FM_THRESHOLDS_COUNT fm_batch_thresholds_count
#endif
/// The largest block an intra-block version may use.
#ifndef FM_MAX_INTRA
#define FM_MAX_INTRA 1024
#endif

#ifdef __CUDACC__
__device__ int fm_dev_error;
#endif
inline int fm_host_error = 0;

[[noreturn]] inline void fm_report(int site) {
  const fm_site& s = FM_SITES[site - 1];
  std::fprintf(stderr, "%s:%d:%d: error: %s: %s\n", FM_FILE, s.line, s.col, s.kind, s.what);
  std::exit(1);
}

/// Records the first failed check. In host code the run ends at once; in a kernel the
/// first failure (by any thread) is reported when the launch has finished.
FM_HD inline void fm_fail(int site) {
#ifdef __CUDA_ARCH__
  atomicCAS(&fm_dev_error, 0, site);
#else
#ifndef __CUDACC__
  if (fm_in_kernel) {
    int expected = 0;
    __atomic_compare_exchange_n(&fm_host_error, &expected, site, false, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    return;
  }
#endif
  fm_report(site);
#endif
}

/// After a launch: synchronise, and report a failed check of any of its threads.
inline void fm_after_launch() {
  FM_CUDA(cudaGetLastError());
  FM_CUDA(cudaDeviceSynchronize());
#ifdef __CUDACC__
  int e = 0;
  FM_CUDA(cudaMemcpyFromSymbol(&e, fm_dev_error, sizeof e));
  if (e) fm_report(e);
#else
  if (fm_host_error) fm_report(fm_host_error);
#endif
}

// Checked operations: site 0 means unchecked (--checks=off), where integer arithmetic
// wraps instead of being undefined.
FM_HD inline int64_t fm_add(int64_t a, int64_t b, int site) {
  if (site && ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))) {
    fm_fail(site);
    return 0;
  }
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
FM_HD inline int64_t fm_sub(int64_t a, int64_t b, int site) {
  if (site && ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b))) {
    fm_fail(site);
    return 0;
  }
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
FM_HD inline int64_t fm_mul(int64_t a, int64_t b, int site) {
  if (!site) return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  if (a == 0 || b == 0) return 0;
  uint64_t ua = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
  uint64_t ub = b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
  bool neg = (a < 0) != (b < 0);
  uint64_t limit = neg ? static_cast<uint64_t>(INT64_MAX) + 1 : static_cast<uint64_t>(INT64_MAX);
  if (ua > limit / ub) {
    fm_fail(site);
    return 0;
  }
  uint64_t r = ua * ub;
  return neg ? static_cast<int64_t>(0 - r) : static_cast<int64_t>(r);
}
/// The operands of / and %: b != 0, and not INT64_MIN / -1; false after a failed check.
FM_HD inline bool fm_divisible(int64_t a, int64_t b, int div_site, int ovf_site) {
  if (!div_site) return true;
  if (b == 0) {
    fm_fail(div_site);
    return false;
  }
  if (a == INT64_MIN && b == -1) {
    fm_fail(ovf_site);
    return false;
  }
  return true;
}
FM_HD inline int64_t fm_div(int64_t a, int64_t b, int div_site, int ovf_site) {
  return fm_divisible(a, b, div_site, ovf_site) ? a / b : 0;
}
FM_HD inline int64_t fm_mod(int64_t a, int64_t b, int div_site, int ovf_site) {
  return fm_divisible(a, b, div_site, ovf_site) ? a % b : 0;
}
FM_HD inline int64_t fm_neg(int64_t a, int site) {
  return fm_sub(0, a, site);
}
FM_HD inline int64_t fm_abs(int64_t a, int site) {
  return a < 0 ? fm_sub(0, a, site) : a;
}
/// An i64 result stored as i32 must fit.
FM_HD inline int32_t fm_i32(int64_t a, int site) {
  if (site && (a < INT32_MIN || a > INT32_MAX)) {
    fm_fail(site);
    return 0;
  }
  return static_cast<int32_t>(a);
}
/// A float converted to an integer type must fit (lim = 2^31 or 2^63).
FM_HD inline int64_t fm_f2i(double v, double lim, int site) {
  if (site && !(v > -lim - 1 && v < lim)) {
    fm_fail(site);
    return 0;
  }
  return static_cast<int64_t>(v);
}
/// A loop bound: the interpreters refuse loops of more than 2^31 - 1 iterations.
FM_HD inline int64_t fm_bound(int64_t n, int site) {
  if (site && n > INT32_MAX) {
    fm_fail(site);
    return 0;
  }
  return n;
}
template <class T> FM_HD inline T fm_min(T a, T b) {
  return a < b ? a : b;
}
template <class T> FM_HD inline T fm_max(T a, T b) {
  return a < b ? b : a;
}
template <class T> FM_HD inline T fm_select(bool c, T a, T b) {
  return c ? a : b;
}

/// Element loads and stores: the element's bytes at the start of its cell.
template <class T> FM_HD inline T fm_ld(fm_mem m, int64_t i, int site) {
  T v{};
  if (site && (i < 0 || i >= m.n)) {
    fm_fail(site);
    return v;
  }
  memcpy(&v, &m.p[i], sizeof v);
  return v;
}
template <class T> FM_HD inline void fm_st(fm_mem m, int64_t i, T v, int site) {
  if (site && (i < 0 || i >= m.n)) {
    fm_fail(site);
    return;
  }
  memcpy(&m.p[i], &v, sizeof v);
}
/// A load through a block's shared-memory tile (cells [start, start + len) of m, those
/// inside m loaded): from the tile when the element is there, else as fm_ld.
template <class T>
FM_HD inline T fm_ld_tile(fm_mem m, int64_t i, int site, const fm_cell* tile, int64_t start,
                          int64_t len) {
  const uint64_t x = static_cast<uint64_t>(i) - static_cast<uint64_t>(start);
  if (i >= 0 && i < m.n && x < static_cast<uint64_t>(len)) {
    T v{};
    memcpy(&v, &tile[x], sizeof v);
    return v;
  }
  return fm_ld<T>(m, i, site);
}
/// A load through a two-dimensional tile: element i of m is the tile's cell `cell`
/// (the generator computes both from the iteration) when `use` (the tile is in use) and
/// i is inside m, else as fm_ld.
template <class T>
FM_HD inline T fm_ld_tile2(fm_mem m, int64_t i, int site, const fm_cell* tile, int64_t cell,
                           int64_t use) {
  if (use && i >= 0 && i < m.n) {
    T v{};
    memcpy(&v, &tile[cell], sizeof v);
    return v;
  }
  return fm_ld<T>(m, i, site);
}
/// A thread's value kept in shared memory across a barrier (a nest's strip-tiled
/// variant): cell `cell` of `s`.
template <class T> FM_HD inline T fm_sld(const fm_cell* s, int64_t cell) {
  T v{};
  memcpy(&v, &s[cell], sizeof v);
  return v;
}
template <class T> FM_HD inline void fm_sst(fm_cell* s, int64_t cell, T v) {
  memcpy(&s[cell], &v, sizeof v);
}
// Host code reads device memory through one cached page of cells (a sequential loop on
// the host reading a block element by element costs one copy per page, not one per
// element); a launch or an allocation drops the page, and a host store writes through
// it to the device.
struct fm_page {
  static constexpr int64_t kCells = 4096;
  const fm_cell* block = nullptr; // the cached block, nullptr: none
  int64_t first = 0, count = 0;   // its cells [first, first + count)
  fm_cell cells[kCells];
  void drop() { block = nullptr; }
  bool holds(fm_mem m, int64_t i) const { return block == m.p && i >= first && i < first + count; }
};
inline fm_page& fm_host_cache() {
  static fm_page page;
  return page;
}
template <class T> inline T fm_host_ld(fm_mem m, int64_t i, int site) {
  if (site && (i < 0 || i >= m.n)) fm_report(site);
  T v{};
  fm_page& c = fm_host_cache();
  if (i < 0 || i >= m.n) { // unchecked code reading outside its block: as it asks
    FM_CUDA(cudaMemcpy(&v, &m.p[i], sizeof v, cudaMemcpyDeviceToHost));
    return v;
  }
  if (!c.holds(m, i)) {
    c.block = nullptr;
    int64_t first = i - i % fm_page::kCells;
    int64_t count = m.n - first < fm_page::kCells ? m.n - first : fm_page::kCells;
    FM_CUDA(cudaMemcpy(c.cells, &m.p[first], static_cast<size_t>(count) * sizeof(fm_cell),
                       cudaMemcpyDeviceToHost));
    c.block = m.p;
    c.first = first;
    c.count = count;
  }
  memcpy(&v, &c.cells[i - c.first], sizeof v);
  return v;
}
template <class T> inline void fm_host_st(fm_mem m, int64_t i, T v, int site) {
  if (site && (i < 0 || i >= m.n)) fm_report(site);
  FM_CUDA(cudaMemcpy(&m.p[i], &v, sizeof v, cudaMemcpyHostToDevice));
  fm_page& c = fm_host_cache();
  if (c.holds(m, i)) memcpy(&c.cells[i - c.first], &v, sizeof v);
}

// ------------------------------------------------------------------ harness

struct fm_harness {
  struct Item {
    bool is_mem = false;
    std::string type;           // scalars: the value's type
    std::string value;          // scalars
    std::vector<fm_cell> cells; // memory blocks
  };
  std::map<std::string, Item> in;
  std::vector<fm_mem> blocks; // every allocation, freed at the end
  bool time = false, output = true;
  int64_t bytes_allocated = 0, peak_bytes = 0, live_bytes = 0;
  struct KernelTime {
    std::string where;
    int launches = 0;
    double ms = 0;
  };
  std::map<std::string, KernelTime> kernel_times;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(), stop = start;
  std::vector<int64_t> thresholds;
  bool log_thresholds = false;
  std::map<std::pair<int, int64_t>, int64_t> comparisons; // (threshold, P) -> count
  // Comprehensive parametric kernels: program parameters (--param B=128 s=4) and the
  // machine's limits as flags (--limit T=.. Z=.. R=..; on a GPU at most the device's).
  std::map<std::string, int64_t> params, limits;
  // Input-aware tuning: the tuning files' `shape` lines, and the command line's --param,
  // --limit and --threshold flags (flag and value), which override a shape line's.
  struct shape_line {
    std::string text;
    std::vector<std::pair<std::string, long long>> sizes;
    std::vector<std::string> flags; // flag, value, flag, value, ...
  };
  std::vector<shape_line> shape_lines;
  std::vector<std::string> cli_flags;

  [[noreturn]] static void fail(const std::string& msg) {
    std::fprintf(stderr, "%s: error: input: %s\n", FM_FILE, msg.c_str());
    std::exit(1);
  }

  static fm_cell cell_of(const std::string& type, const std::string& text) {
    fm_cell c{};
    char* end = nullptr;
    if (type == "i64") {
      int64_t v = std::strtoll(text.c_str(), &end, 10);
      std::memcpy(&c, &v, sizeof v);
    } else if (type == "i32") {
      int32_t v = static_cast<int32_t>(std::strtol(text.c_str(), &end, 10));
      std::memcpy(&c, &v, sizeof v);
    } else if (type == "f64") {
      double v = std::strtod(text.c_str(), &end);
      std::memcpy(&c, &v, sizeof v);
    } else if (type == "f32") {
      float v = std::strtof(text.c_str(), &end);
      std::memcpy(&c, &v, sizeof v);
    } else if (type == "bool") {
      bool v = text == "true" || text == "1";
      end = const_cast<char*>(text.c_str() + text.size());
      std::memcpy(&c, &v, sizeof v);
    } else {
      fail("unknown type '" + type + "'");
    }
    if (!end || *end) fail("bad " + type + " value '" + text + "'");
    return c;
  }

  /// `NAME=VALUE`: sets every threshold whose name matches the glob NAME.
  void set_threshold(const std::string& item, const char* from) {
    size_t eq = item.find('=');
    if (eq == std::string::npos)
      fail(std::string(from) + ": expected NAME=VALUE, got '" + item + "'");
    std::string pat = item.substr(0, eq), text = item.substr(eq + 1);
    while (!pat.empty() && (pat.back() == ' ' || pat.back() == '\t'))
      pat.pop_back();
    while (!text.empty() && (text[0] == ' ' || text[0] == '\t'))
      text.erase(0, 1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
      text.pop_back();
    int64_t v = 0;
    if (text == "inf") {
      v = INT64_MAX;
    } else {
      char* end = nullptr;
      errno = 0;
      long long x = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end || errno || x < 0)
        fail(std::string(from) + ": bad threshold value '" + text +
             "' (a non-negative integer or inf)");
      v = x;
    }
    bool any = false;
    for (int t = 0; t < FM_THRESHOLDS_COUNT; ++t)
      if (fnmatch(pat.c_str(), FM_THRESHOLDS_INFO[t].name, 0) == 0) {
        thresholds[static_cast<size_t>(t)] = v;
        any = true;
      }
    bool glob = pat.find_first_of("*?[") != std::string::npos;
    if (!any && !glob) fail(std::string(from) + ": no threshold named '" + pat + "'");
  }
  /// `NAME=VALUE` of --param / --limit: NAME one of `names`, VALUE in [1, 2^20] (Z: [0, 2^40]).
  void set_value(std::map<std::string, int64_t>& to, const std::string& item, const char* from,
                 const char* names) {
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq == std::string::npos ? 0 : eq);
    char* end = nullptr;
    errno = 0;
    long long v = eq == std::string::npos ? 0 : std::strtoll(item.c_str() + eq + 1, &end, 10);
    const long long lo = name == "Z" ? 0 : 1, hi = name == "Z" ? 1ll << 40 : 1 << 20;
    const std::string words = std::string(" ") + names + " ";
    if (name.empty() || words.find(" " + name + " ") == std::string::npos || !end || *end ||
        errno || v < lo || v > hi)
      fail(std::string(from) + ": expected NAME=VALUE with NAME one of " + names +
           " and VALUE in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + item +
           "'");
    to[name] = v;
  }
  /// A program parameter of the parametric kernels: --param NAME=VALUE, else `def`.
  int64_t param(const char* name, int64_t def) const {
    auto it = params.find(name);
    return it == params.end() ? def : it->second;
  }
  /// The limits a leaf's constraints are evaluated against, for blocks of B threads:
  /// threads per block, shared memory bytes per block, registers per thread (at most
  /// 255 and what the block's register file leaves each of its B threads). On a GPU the
  /// device's (cudaGetDeviceProperties), lowered by --limit; on the emulation those of
  /// current NVIDIA GPUs (1024 threads, 48 KiB, 65536 registers), or --limit.
  struct machine_limits {
    int64_t T = 1024, Z = 49152, R = 255;
  };
  machine_limits machine(int64_t B) const {
    static machine_limits device{};
    static int64_t regs_per_block = 65536;
#ifdef __CUDACC__
    static bool asked = false;
    if (!asked) {
      int dev = 0;
      cudaDeviceProp p;
      FM_CUDA(cudaGetDevice(&dev));
      FM_CUDA(cudaGetDeviceProperties(&p, dev));
      device.T = p.maxThreadsPerBlock;
      device.Z = static_cast<int64_t>(p.sharedMemPerBlock);
      regs_per_block = p.regsPerBlock;
      asked = true;
    }
#endif
    machine_limits m = device;
    m.R = std::min<int64_t>(255, regs_per_block / std::max<int64_t>(B, 1));
    for (const auto& [name, v] : limits) {
      int64_t& l = name == "T" ? m.T : name == "Z" ? m.Z : m.R;
      l = std::min(l, v);
    }
    return m;
  }
  [[noreturn]] static void no_leaf(const char* kernel, const char* where,
                                   std::initializer_list<std::pair<const char*, int64_t>> params,
                                   const machine_limits& m) {
    std::string ps;
    for (const auto& [name, v] : params)
      ps += (ps.empty() ? "" : " ") + std::string(name) + "=" + std::to_string(v);
    std::fprintf(stderr,
                 "%s: error: resource: no leaf of %s's case discussion fits %s with T=%" PRId64
                 " Z=%" PRId64 " R=%" PRId64 "\n",
                 where, kernel, ps.c_str(), m.T, m.Z, m.R);
    std::exit(1);
  }
  void read_tuning(const char* file) {
    FILE* f = std::fopen(file, "r");
    if (!f) fail(std::string("cannot open tuning file '") + file + "'");
    char line[512];
    int no = 0;
    while (std::fgets(line, sizeof line, f)) {
      ++no;
      std::string l = line;
      while (!l.empty() && (l.back() == '\n' || l.back() == '\r' || l.back() == ' '))
        l.pop_back();
      size_t b = l.find_first_not_of(" \t");
      if (b == std::string::npos || l[b] == '#') continue;
      const std::string where = std::string(file) + ":" + std::to_string(no);
      if (l.compare(b, 6, "shape ") == 0)
        read_shape_line(l.substr(b + 6), where);
      else
        set_threshold(l.substr(b), where.c_str());
    }
    std::fclose(f);
  }
  /// `NAME=VALUE ... : --param X=N --limit Y=N --threshold 'P=V' ...` (quotes dropped).
  void read_shape_line(const std::string& l, const std::string& where) {
    const size_t colon = l.find(" : ");
    if (colon == std::string::npos)
      fail(where + ": expected `shape NAME=VALUE ... : FLAGS`, got 'shape " + l + "'");
    shape_line s;
    s.text = l.substr(0, colon);
    auto words = [](const std::string& t) {
      std::vector<std::string> w;
      size_t at = 0;
      while ((at = t.find_first_not_of(" \t", at)) != std::string::npos) {
        size_t end = t.find_first_of(" \t", at);
        std::string word = t.substr(at, end == std::string::npos ? std::string::npos : end - at);
        word.erase(std::remove(word.begin(), word.end(), '\''), word.end());
        w.push_back(word);
        at = end;
      }
      return w;
    };
    for (const std::string& w : words(s.text)) {
      const size_t eq = w.find('=');
      char* end = nullptr;
      errno = 0;
      const long long v = eq == std::string::npos ? -1 : std::strtoll(w.c_str() + eq + 1, &end, 10);
      if (eq == 0 || eq == std::string::npos || !end || *end || errno || v < 0)
        fail(where + ": bad size '" + w + "' (NAME=VALUE, VALUE a non-negative integer)");
      s.sizes.emplace_back(w.substr(0, eq), v);
    }
    s.flags = words(l.substr(colon + 3));
    if (s.sizes.empty() || s.flags.size() % 2)
      fail(where + ": expected `shape NAME=VALUE ... : FLAGS`");
    std::map<std::string, int64_t> checked; // the values' checks, reported at the line
    for (size_t k = 0; k < s.flags.size(); k += 2) {
      if (s.flags[k] == "--param")
        set_value(checked, s.flags[k + 1], where.c_str(), "B B0 B1 s");
      else if (s.flags[k] == "--limit")
        set_value(checked, s.flags[k + 1], where.c_str(), "T Z R");
      else if (s.flags[k] != "--threshold")
        fail(where + ": a shape line sets --param, --limit or --threshold, not '" + s.flags[k] +
             "'");
    }
    shape_lines.push_back(std::move(s));
  }
  void apply_flag(const std::string& flag, const std::string& value, const char* from) {
    if (flag == "--param")
      set_value(params, value, from, "B B0 B1 s");
    else if (flag == "--limit")
      set_value(limits, value, from, "T Z R");
    else
      set_threshold(value, from);
  }
  /// The shape line nearest the scalar inputs, applied under the command line's flags.
  void choose_shape() {
    const shape_line* best = nullptr;
    double best_d = 0;
    for (const shape_line& s : shape_lines) {
      double d = 0;
      bool named = true;
      for (const auto& [name, v] : s.sizes) {
        auto it = in.find(name);
        if (it == in.end() || it->second.is_mem) {
          named = false;
          break;
        }
        const double x = std::max(0.0, std::strtod(it->second.value.c_str(), nullptr));
        d += std::fabs(std::log2(1.0 + x) - std::log2(1.0 + static_cast<double>(v)));
      }
      if (named && (!best || d < best_d)) {
        best = &s;
        best_d = d;
      }
    }
    if (!best) return;
    for (size_t k = 0; k + 1 < best->flags.size(); k += 2)
      apply_flag(best->flags[k], best->flags[k + 1], ("shape " + best->text).c_str());
    for (size_t k = 0; k + 1 < cli_flags.size(); k += 2)
      apply_flag(cli_flags[k], cli_flags[k + 1], cli_flags[k].c_str());
    if (time)
      std::fprintf(stderr, "time: shape %s (%s)\n", best->text.c_str(),
                   best_d == 0 ? "equal" : "nearest");
  }
  static void print_tuning_tree() {
    for (int t = 0; t < FM_THRESHOLDS_COUNT; ++t) {
      const fm_threshold_info& i = FM_THRESHOLDS_INFO[t];
      std::printf("threshold %s parent %s default %" PRId64 " at %s\n  P = %s\n  P >= T: %s\n",
                  i.name, i.parent < 0 ? "-" : FM_THRESHOLDS_INFO[i.parent].name, i.def, i.where,
                  i.p, i.version);
      if (i.otherwise[0]) std::printf("  otherwise: %s\n", i.otherwise);
    }
  }
  /// The branch `P >= T` of threshold t, logged.
  bool above(int t, int64_t p) {
    if (log_thresholds) ++comparisons[{t, p}];
    return p >= thresholds[static_cast<size_t>(t)];
  }

  fm_harness(int argc, char** argv) {
    const char* path = nullptr;
    for (int t = 0; t < FM_THRESHOLDS_COUNT; ++t)
      thresholds.push_back(FM_THRESHOLDS_INFO[t].def);
    if (const char* env = std::getenv("FUNMEM_TUNING"); env && *env) read_tuning(env);
    for (int k = 1; k < argc; ++k) {
      if (std::strcmp(argv[k], "--time") == 0)
        time = true;
      else if (std::strcmp(argv[k], "--no-output") == 0)
        output = false;
      else if (std::strcmp(argv[k], "--log-thresholds") == 0)
        log_thresholds = true;
      else if (std::strcmp(argv[k], "--tuning-tree") == 0) {
        print_tuning_tree();
        std::exit(0);
      } else if (std::strcmp(argv[k], "--tuning") == 0 && k + 1 < argc)
        read_tuning(argv[++k]);
      else if ((std::strcmp(argv[k], "--threshold") == 0 || std::strcmp(argv[k], "--param") == 0 ||
                std::strcmp(argv[k], "--limit") == 0) &&
               k + 1 < argc) {
        cli_flags.push_back(argv[k]);
        cli_flags.push_back(argv[k + 1]);
        apply_flag(argv[k], argv[k + 1], argv[k]);
        ++k;
      } else if (argv[k][0] == '-' && argv[k][1] == '-')
        fail(std::string("unknown flag '") + argv[k] + "'");
      else
        path = argv[k];
    }
    FILE* f = path ? std::fopen(path, "r") : stdin;
    if (!f) fail(std::string("cannot open '") + path + "'");
    char word[64], name[256], type[16], value[128];
    while (std::fscanf(f, "%63s", word) == 1) {
      if (word[0] == '#') {
        int ch;
        while ((ch = std::fgetc(f)) != EOF && ch != '\n') {
        }
        continue;
      }
      Item it;
      if (std::strcmp(word, "scalar") == 0) {
        if (std::fscanf(f, "%255s %15s %127s", name, type, value) != 3) fail("bad scalar line");
        it.type = type;
        it.value = value;
      } else if (std::strcmp(word, "mem") == 0) {
        long long count = 0;
        if (std::fscanf(f, "%255s %lld", name, &count) != 2 || count < 0) fail("bad mem line");
        it.is_mem = true;
        long pos = std::ftell(f);
        unsigned long long seed = 0;
        if (std::fscanf(f, " random %15s %llu", type, &seed) == 2) {
          // `random TYPE SEED`: COUNT values in -8..8 (benchmarks; no text per element).
          const std::string t = type;
          it.cells.reserve(static_cast<size_t>(count));
          fm_cell small[17]; // each value's cell, converted once
          for (int v = 0; v < 17; ++v)
            small[v] = cell_of(t, std::to_string(v - 8));
          for (long long k = 0; k < count; ++k) {
            seed += 0x9e3779b97f4a7c15ull;
            unsigned long long z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            z ^= z >> 31;
            it.cells.push_back(small[z % 17]);
          }
          count = 0;
        } else {
          std::fseek(f, pos, SEEK_SET);
        }
        for (long long k = 0; k < count; ++k) {
          if (std::fscanf(f, "%15s %127s", type, value) != 2) fail("too few elements");
          it.cells.push_back(cell_of(type, value));
        }
      } else {
        fail(std::string("unknown item '") + word + "'");
      }
      in[name] = std::move(it);
    }
    if (path) std::fclose(f);
    choose_shape();
  }

  const Item& item(const char* name, bool mem) {
    auto it = in.find(name);
    if (it == in.end()) fail(std::string("no input for '") + name + "'");
    if (it->second.is_mem != mem)
      fail(std::string("'") + name + "' must be " + (mem ? "a mem" : "a scalar"));
    return it->second;
  }
  template <class T> T scalar(const char* name, const char* type) {
    const Item& it = item(name, false);
    if (it.type != type) fail(std::string("'") + name + "' must be of type " + type);
    fm_cell c = cell_of(it.type, it.value);
    T v{};
    std::memcpy(&v, &c, sizeof v);
    return v;
  }
  fm_mem alloc(int64_t n, int site) {
    if (n < 0) {
      if (site) fm_report(site);
      fail("allocation of a negative size");
    }
    fm_mem m{nullptr, n};
    fm_host_cache().drop();
    FM_CUDA(cudaMalloc(reinterpret_cast<void**>(&m.p), static_cast<size_t>(n) * sizeof(fm_cell)));
    FM_CUDA(cudaMemset(m.p, 0, static_cast<size_t>(n) * sizeof(fm_cell)));
    blocks.push_back(m);
    bytes_allocated += n * static_cast<int64_t>(sizeof(fm_cell));
    live_bytes += n * static_cast<int64_t>(sizeof(fm_cell));
    if (live_bytes > peak_bytes) peak_bytes = live_bytes;
    return m;
  }
  fm_mem mem(const char* name) {
    const Item& it = item(name, true);
    fm_mem m = alloc(static_cast<int64_t>(it.cells.size()), 0);
    FM_CUDA(cudaMemcpy(m.p, it.cells.data(), it.cells.size() * sizeof(fm_cell),
                       cudaMemcpyHostToDevice));
    return m;
  }

  /// Grid size for n iterations: enough blocks to give each iteration a thread, at most
  /// 65535 (larger kernels loop, grid-stride).
  /// Grid size for one block per iteration (grid-stride beyond 65535).
  static dim3 grid_blocks(int64_t n) {
    return dim3(static_cast<unsigned>(n > 65535 ? 65535 : n));
  }
  static dim3 grid_for(int64_t n, int block) {
    int64_t g = (n + block - 1) / block;
    return dim3(static_cast<unsigned>(g < 1 ? 1 : g > 65535 ? 65535 : g));
  }
  /// Grid of a kernel nest's two-dimensional blocks: columns of chunks of `x` inner
  /// iterations by rows of chunks of `y` outer ones (grid-stride beyond 65535 each).
  static dim3 grid_for2(int64_t n, int64_t y, int64_t m, int64_t x) {
    return dim3(grid_for(m, static_cast<int>(x)).x, grid_for(n, static_cast<int>(y)).x);
  }
  std::chrono::steady_clock::time_point launch_start() {
    return std::chrono::steady_clock::now();
  }
  void launch_end(const char* kernel, const char* where, std::chrono::steady_clock::time_point t0) {
    fm_after_launch();
    KernelTime& k = kernel_times[kernel];
    k.where = where;
    ++k.launches;
    k.ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  static void print_value(const char* type, const fm_cell& c) {
    if (std::strcmp(type, "i64") == 0) {
      int64_t v;
      std::memcpy(&v, &c, sizeof v);
      std::printf(" %" PRId64, v);
    } else if (std::strcmp(type, "i32") == 0) {
      int32_t v;
      std::memcpy(&v, &c, sizeof v);
      std::printf(" %" PRId32, v);
    } else if (std::strcmp(type, "f64") == 0) {
      double v;
      std::memcpy(&v, &c, sizeof v);
      std::printf(" %a", v);
    } else if (std::strcmp(type, "f32") == 0) {
      float v;
      std::memcpy(&v, &c, sizeof v);
      std::printf(" %a", static_cast<double>(v));
    } else {
      bool v;
      std::memcpy(&v, &c, sizeof v);
      std::printf(" %s", v ? "true" : "false");
    }
  }
  /// The program proper runs between begin() (inputs on the device) and end().
  void begin() {
    FM_CUDA(cudaDeviceSynchronize());
    start = std::chrono::steady_clock::now();
  }
  void end() {
    FM_CUDA(cudaDeviceSynchronize());
    stop = std::chrono::steady_clock::now();
  }

  template <class T> void result_scalar(const char* name, const char* type, T v) {
    if (!output) return;
    fm_cell c{};
    std::memcpy(&c, &v, sizeof v);
    std::printf("scalar %s %s", name, type);
    print_value(type, c);
    std::printf("\n");
  }
  void result_mem(const char* name, const char* type, fm_mem m) {
    if (!output) return;
    std::vector<fm_cell> cells(static_cast<size_t>(m.n));
    FM_CUDA(cudaMemcpy(cells.data(), m.p, cells.size() * sizeof(fm_cell), cudaMemcpyDeviceToHost));
    std::printf("mem %s %" PRId64 " %s", name, m.n, type);
    for (const fm_cell& c : cells)
      print_value(type, c);
    std::printf("\n");
  }

  void finish() {
    FM_CUDA(cudaDeviceSynchronize());
    double total = std::chrono::duration<double, std::milli>(stop - start).count();
    if (time) {
      for (const auto& [name, k] : kernel_times)
        std::fprintf(stderr, "time: kernel %s (%s): %d launch(es), %.3f ms\n", name.c_str(),
                     k.where.c_str(), k.launches, k.ms);
      std::fprintf(stderr,
                   "time: run %.3f ms, %" PRId64 " bytes allocated, peak %" PRId64 " bytes\n",
                   total, bytes_allocated, peak_bytes);
    }
    if (log_thresholds)
      for (const auto& [key, count] : comparisons)
        std::fprintf(stderr, "threshold %s %" PRId64 " %" PRId64 "\n",
                     FM_THRESHOLDS_INFO[key.first].name, key.second, count);
    for (fm_mem& m : blocks)
      FM_CUDA(cudaFree(m.p));
    std::fflush(stdout);
  }
};
