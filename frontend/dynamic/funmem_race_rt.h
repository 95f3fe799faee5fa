// funmem_race_rt.h: the CPU emulation that funmem-race-run compiles instrumented CUDA
// kernels against (docs/extract.md, "The dynamic race detector"). Every thread of a
// block is a real POSIX thread, `__syncthreads()` a real barrier (a thread that returns
// drops out of it); blocks run one after the other. Every load and store the
// instrumentation wrapped records (object, byte offset, size, kind, block, thread,
// barrier epoch, source position); an address outside every registered object and
// outside the thread's own stack is reported out of bounds and redirected to scratch
// memory, so a wrong kernel cannot corrupt the run. After a launch, two accesses of
// different threads to overlapping bytes, one a write, not both atomics of the same bytes
// and width, are a race when they are in different blocks (global memory) or in the same
// block and the same barrier epoch.
#pragma once
#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <sys/time.h>
#include <shared_mutex>
#include <sstream>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __constant__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(...)

struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int a = 1, unsigned int b = 1, unsigned int c = 1) : x(a), y(b), z(c) {}
};
inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline dim3 blockDim, gridDim;
inline const int warpSize = 32;

namespace fmr {

enum Kind { Read = 0, Write = 1, Atomic = 2 };
struct Region {
  const char* base;
  size_t size;
  std::string name;
  bool shared;
};
struct Event {
  int region;
  int64_t off;
  int64_t size;
  int kind;
  int block, thread, epoch, line, col;
  int grid_epoch; // grid barriers (cooperative groups) the thread has passed
  int warp_epoch; // __syncwarp barriers the thread has passed
};

inline std::shared_mutex mu; // regions: looked up shared, registered exclusive
inline std::mutex errors_mu;
inline std::vector<Region> regions;
inline std::vector<std::vector<Event>> events; // per thread of the launch
inline std::vector<std::string> errors;
inline thread_local std::vector<Event>* my_events = nullptr;
inline thread_local int epoch = 0, block_id = 0, thread_id = 0, grid_epoch = 0, warp_epoch = 0;
// A construct of the launch the detector does not model (its races are not reported).
inline std::atomic<bool> unmodelled{false};
inline thread_local const char* stack_lo = nullptr;
inline thread_local const char* stack_hi = nullptr;
inline thread_local char scratch[1 << 16];
inline std::barrier<>* block_barrier = nullptr;
// Warps (32 consecutive threads of a block): a barrier each and a slot per thread, for
// the shuffles; a thread that returns drops out of its warp's barrier too.
inline std::vector<std::barrier<>*> warp_barriers;
inline std::vector<unsigned long long> warp_slots;
inline long mutant = -1, mutant2 = -1;

/// Mutant schemata (docs/extract.md): mutation k is active in this run.
inline bool m(long k) {
  return mutant == k || mutant2 == k;
}

inline void reg(const void* p, size_t size, const char* name, bool shared) {
  {
    std::shared_lock<std::shared_mutex> l(mu);
    for (const Region& r : regions)
      if (r.base == p) return;
  }
  std::unique_lock<std::shared_mutex> l(mu);
  for (const Region& r : regions)
    if (r.base == p) return;
  regions.push_back({static_cast<const char*>(p), size, name, shared});
}

/// The run's work: accesses and barrier passes, all kernels of a job together. A run past
/// `work_limit` stops: its budget counts work, the same on every machine.
inline std::atomic<unsigned long long> work_done{0};
inline unsigned long long work_limit = 0; // 0: none
inline void count_work() {
  if (work_limit && work_done.fetch_add(1, std::memory_order_relaxed) + 1 == work_limit) {
    std::printf("error\tthe run exceeded its work budget (%llu accesses and barrier passes)\n",
                work_limit);
    std::fflush(stdout);
    std::_Exit(3);
  }
}
inline void* access(const void* p, int64_t n, int kind, int line, int col) {
  const char* c = static_cast<const char*>(p);
  count_work();
  if (c >= stack_lo && c < stack_hi) return const_cast<void*>(p); // the thread's own
  {
    std::shared_lock<std::shared_mutex> l(mu);
    for (size_t r = 0; r < regions.size(); ++r) {
      const Region& g = regions[r];
      if (c >= g.base && n >= 0 && c + n <= g.base + g.size) {
        if (my_events)
          my_events->push_back({static_cast<int>(r), c - g.base, n, kind, block_id, thread_id,
                                epoch, line, col, grid_epoch, warp_epoch});
        return const_cast<void*>(p);
      }
    }
  }
  std::lock_guard<std::mutex> l(errors_mu);
  if (errors.size() < 20)
    errors.push_back("out of bounds: " + std::to_string(n) + " byte(s) at " + std::to_string(line) +
                     ":" + std::to_string(col) + " (block " + std::to_string(block_id) +
                     " thread " + std::to_string(thread_id) + ")");
  if (n > static_cast<int64_t>(sizeof scratch)) std::abort();
  return scratch;
}
/// An address of any qualification (`volatile` ones too).
inline const void* addr(const volatile void* p) { return const_cast<const void*>(p); }
template <class T> T* rd(T* p, int line, int col) {
  return static_cast<T*>(access(addr(p), sizeof(T), Read, line, col));
}
template <class T> T* wr(T* p, int line, int col) {
  return static_cast<T*>(access(addr(p), sizeof(T), Write, line, col));
}
template <class T> T* rw(T* p, int line, int col) {
  access(addr(p), sizeof(T), Read, line, col);
  return static_cast<T*>(access(addr(p), sizeof(T), Write, line, col));
}
inline void* copy(int line, int col, void* to, const void* from, size_t n) {
  const void* f = access(from, static_cast<int64_t>(n), Read, line, col);
  void* t = access(to, static_cast<int64_t>(n), Write, line, col);
  return std::memmove(t, f, n);
}
inline void* set(int line, int col, void* to, int v, size_t n) {
  return std::memset(access(to, static_cast<int64_t>(n), Write, line, col), v, n);
}
inline std::mutex atomic_mu;
template <class T, class F> T atomic(T* p, F f) {
  T* q = static_cast<T*>(access(p, sizeof(T), Atomic, 0, 0));
  std::lock_guard<std::mutex> l(atomic_mu);
  T old = *q;
  *q = f(old);
  return old;
}
inline void barrier() {
  count_work();
  block_barrier->arrive_and_wait();
  ++epoch;
}

struct ThreadStart {
  void (*body)(void*);
  void* arg;
  uint3 tid, bid;
  int block, thread;
};
inline void* thread_main(void* p) {
  auto* s = static_cast<ThreadStart*>(p);
  char here = 0;
  stack_hi = &here + 4096;
  stack_lo = &here - (1 << 20);
  threadIdx = s->tid;
  blockIdx = s->bid;
  block_id = s->block;
  thread_id = s->thread;
  epoch = 0;
  grid_epoch = 0;
  warp_epoch = 0;
  my_events = &events[static_cast<size_t>(s->block) * blockDim.x * blockDim.y * blockDim.z +
                      static_cast<size_t>(s->thread)];
  s->body(s->arg);
  block_barrier->arrive_and_drop();
  warp_barriers[static_cast<size_t>(s->thread) / 32]->arrive_and_drop();
  return nullptr;
}

/// Runs `body(arg)` in every thread of the launch, a block at a time.
inline void launch(dim3 g, dim3 b, void (*body)(void*), void* arg) {
  gridDim = g;
  blockDim = b;
  const int threads = static_cast<int>(b.x * b.y * b.z), blocks = static_cast<int>(g.x * g.y * g.z);
  events.assign(static_cast<size_t>(threads) * blocks, {});
  for (int blk = 0; blk < blocks; ++blk) {
    std::barrier<> bar(threads);
    block_barrier = &bar;
    std::vector<std::unique_ptr<std::barrier<>>> warps;
    warp_barriers.clear();
    for (int w = 0; w * 32 < threads; ++w) {
      warps.push_back(std::make_unique<std::barrier<>>(std::min(32, threads - w * 32)));
      warp_barriers.push_back(warps.back().get());
    }
    warp_slots.assign(static_cast<size_t>(threads), 0);
    std::vector<ThreadStart> starts(static_cast<size_t>(threads));
    std::vector<pthread_t> ts(static_cast<size_t>(threads));
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 2 << 20);
    for (int t = 0; t < threads; ++t) {
      ThreadStart& s = starts[static_cast<size_t>(t)];
      s = {body,
           arg,
           {static_cast<unsigned>(t) % b.x, (static_cast<unsigned>(t) / b.x) % b.y,
            static_cast<unsigned>(t) / (b.x * b.y)},
           {static_cast<unsigned>(blk) % g.x, (static_cast<unsigned>(blk) / g.x) % g.y,
            static_cast<unsigned>(blk) / (g.x * g.y)},
           blk,
           t};
      if (pthread_create(&ts[static_cast<size_t>(t)], &attr, thread_main, &s) != 0) {
        std::printf("error\tcannot start thread %d\n", t);
        std::exit(3);
      }
    }
    for (pthread_t& t : ts)
      pthread_join(t, nullptr);
    pthread_attr_destroy(&attr);
  }
}

/// A warp shuffle: every thread of the warp publishes `v`, then reads lane `src`'s
/// (its own value when `src` is outside the warp or the width's segment).
template <class T> T shuffle(T v, long src) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "a shuffle of a wider type");
  const size_t me = static_cast<size_t>(thread_id), base = me / 32 * 32;
  std::barrier<>* w = warp_barriers[me / 32];
  unsigned long long bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  warp_slots[me] = bits;
  w->arrive_and_wait();
  T out = v;
  if (src >= 0 && base + static_cast<size_t>(src) < warp_slots.size() && src < 32)
    std::memcpy(&out, &warp_slots[base + static_cast<size_t>(src)], sizeof(T));
  w->arrive_and_wait();
  return out;
}
inline long lane() {
  return thread_id % 32;
}
/// `__syncwarp(mask)`: a barrier of the thread's warp (32 consecutive threads of the
/// block) that orders the memory accesses on its two sides, where the mask names every
/// thread of the warp; another mask is not modelled.
inline void warp_barrier(unsigned mask) {
  const int threads = static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
  const int w = thread_id / 32, lanes = std::min(32, threads - w * 32);
  const unsigned all = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
  if ((mask & all) != all) {
    if (!unmodelled.exchange(true)) {
      std::lock_guard<std::mutex> l(errors_mu);
      errors.push_back("a __syncwarp whose mask leaves out threads of its warp is not "
                       "modelled: no race is reported");
    }
    return;
  }
  warp_barriers[static_cast<size_t>(w)]->arrive_and_wait();
  ++warp_epoch;
}

inline std::string triple(int linear, dim3 d) {
  unsigned u = static_cast<unsigned>(linear);
  return "(" + std::to_string(u % d.x) + "," + std::to_string((u / d.x) % d.y) + "," +
         std::to_string(u / (d.x * d.y)) + ")";
}
inline const char* kind_name(int k) {
  return k == Read ? "reads" : k == Write ? "writes" : "atomically updates";
}
inline std::string describe(const Event& e) {
  return "block " + triple(e.block, gridDim) + " thread " + triple(e.thread, blockDim) + " " +
         kind_name(e.kind) + " " + std::to_string(e.size) + " byte(s) at " +
         std::to_string(e.line) + ":" + std::to_string(e.col);
}

/// Prints the races of the last launch (at most `limit` lines) and its errors.
inline int report(int limit = 5) {
  if (unmodelled.exchange(false)) limit = 0;
  std::vector<Event> all;
  for (auto& v : events)
    all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end(), [](const Event& a, const Event& b) {
    return a.region != b.region ? a.region < b.region : a.off < b.off;
  });
  int found = 0;
  std::vector<std::string> seen;
  for (size_t i = 0; i < all.size() && found < limit; ++i) {
    const Event& a = all[i];
    for (size_t j = i + 1;
         j < all.size() && all[j].region == a.region && all[j].off < a.off + a.size; ++j) {
      const Event& b = all[j];
      if (a.kind == Read && b.kind == Read) continue;
      // Atomics of one width at one address are ordered; of different widths they race.
      if (a.kind == Atomic && b.kind == Atomic && a.size == b.size && a.off == b.off) continue;
      if (a.block == b.block && a.thread == b.thread) continue;
      bool same_block = a.block == b.block;
      if (same_block && a.epoch != b.epoch) continue;
      // A __syncwarp orders the accesses of its warp's threads on its two sides.
      if (same_block && a.thread / 32 == b.thread / 32 && a.warp_epoch != b.warp_epoch) continue;
      if (!same_block && regions[static_cast<size_t>(a.region)].shared) continue;
      // Blocks run one after another; a grid barrier orders what is on its two sides.
      if (!same_block && a.grid_epoch != b.grid_epoch) continue;
      std::string key = std::to_string(a.line) + ":" + std::to_string(a.col) + "/" +
                        std::to_string(b.line) + ":" + std::to_string(b.col);
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      std::printf("race\t%s\t%lld\t%s\t%s\n", regions[static_cast<size_t>(a.region)].name.c_str(),
                  static_cast<long long>(std::max(a.off, b.off)), describe(a).c_str(),
                  describe(b).c_str());
      if (++found >= limit) break;
    }
  }
  for (const std::string& e : errors)
    std::printf("error\t%s\n", e.c_str());
  errors.clear();
  std::fflush(stdout);
  return found;
}

/// The contents of the buffers: element i holds (7 i + 3) mod count (integers; distinct
/// for most counts) or i mod 17 / 2 (floats); zero everywhere when `zero_fill` is set
/// (a job's `@@fill=0`: equal values, as data-dependent indices that collide need).
inline bool zero_fill = false;
/// The block's dynamic shared memory, which every `extern __shared__` array of a kernel
/// and its device functions starts at (CUDA's semantics): 48 KiB, CUDA's default limit,
/// one shared object named after the first array met.
alignas(16) inline unsigned char dynamic_shared_memory[48 * 1024];
template <class T> T* dynamic_shared(const char* name) {
  reg(dynamic_shared_memory, sizeof(dynamic_shared_memory), name, true);
  return reinterpret_cast<T*>(dynamic_shared_memory);
}
/// A buffer for a pointer parameter: `count` elements, registered as global memory.
template <class T> T* buffer(const char* name, size_t count) {
  size_t bytes = sizeof(T) * count;
  char* p = static_cast<char*>(std::calloc(bytes + 1, 1));
  for (size_t i = 0; i < count && !zero_fill; ++i) {
    if constexpr (std::is_integral_v<T>)
      reinterpret_cast<T*>(p)[i] = static_cast<T>((i * 7 + 3) % count);
    else if constexpr (std::is_floating_point_v<T>)
      reinterpret_cast<T*>(p)[i] = static_cast<T>(i % 17) * static_cast<T>(0.5);
  }
  reg(p, bytes, name, false);
  return reinterpret_cast<T*>(p);
}
/// A run: the mutants switched on, the launch, the buffers' length, scalar arguments.
struct Job {
  long mutant = -1, mutant2 = -1;
  dim3 grid, block;
  size_t elements = 0;
  std::vector<std::pair<std::string, long long>> args;
  /// A pointer argument's element count: given as `@name=count`, or `elements`.
  size_t size(const char* n) const {
    for (const auto& [k, v] : args)
      if (k.size() > 1 && k[0] == '@' && k.compare(1, std::string::npos, n) == 0 && v >= 0)
        return static_cast<size_t>(v);
    return elements;
  }
  bool zero_fill() const {
    for (const auto& [k, v] : args)
      if (k == "@@fill" && v == 0) return true;
    return false;
  }
  /// Whether a scalar argument is given.
  bool given(const char* n) const {
    for (const auto& [k, v] : args)
      if (k == n) return true;
    return false;
  }
  /// A scalar argument: given, or the number of threads in x.
  long long scalar(const char* n) const {
    for (const auto& [k, v] : args)
      if (k == n) return v;
    return static_cast<long long>(grid.x) * block.x;
  }
};
inline int job_seconds = 60;
inline bool job_started = false;
/// The next job: from standard input (`--jobs SECONDS WORK`, a line each: mutant mutant2
/// gx gy gz bx by bz elements name=value...), or the command line's one. SECONDS guards
/// against a run that loops without touching memory; WORK is its budget.
inline bool read_job(Job& j, int argc, char** argv) {
  if (job_started) {
    std::printf("job-done\n");
    std::fflush(stdout);
  }
  std::string line;
  bool from_stdin = argc >= 3 && std::string(argv[1]) == "--jobs";
  if (from_stdin) {
    job_seconds = std::atoi(argv[2]);
    if (argc >= 4) work_limit = std::strtoull(argv[3], nullptr, 10);
    char buf[4096];
    if (!std::fgets(buf, sizeof buf, stdin)) return false;
    line = buf;
  } else {
    if (job_started) return false;
    for (int i = 1; i < argc; ++i)
      line += std::string(argv[i]) + " ";
  }
  job_started = true;
  j = Job{};
  long long g[3] = {1, 1, 1}, b[3] = {1, 1, 1}, e = 0;
  std::istringstream in(line);
  in >> j.mutant >> j.mutant2 >> g[0] >> g[1] >> g[2] >> b[0] >> b[1] >> b[2] >> e;
  for (std::string kv; in >> kv;)
    if (auto eq = kv.find('='); eq != std::string::npos)
      j.args.push_back({kv.substr(0, eq), std::stoll(kv.substr(eq + 1))});
  j.grid =
      dim3(static_cast<unsigned>(g[0]), static_cast<unsigned>(g[1]), static_cast<unsigned>(g[2]));
  j.block =
      dim3(static_cast<unsigned>(b[0]), static_cast<unsigned>(b[1]), static_cast<unsigned>(b[2]));
  long long threads = g[0] * g[1] * g[2] * b[0] * b[1] * b[2];
  j.elements =
      static_cast<size_t>(e > 0 ? e : std::min<long long>(threads * threads + 64, 1 << 22));
  mutant = j.mutant;
  mutant2 = j.mutant2;
  work_done = 0;
  // The guards: seconds of the process's CPU time (its threads' work, whatever else the
  // machine runs) against a loop that touches no memory, and ten times as many seconds
  // of wall-clock time against threads that wait forever.
  itimerval cpu{};
  cpu.it_value.tv_sec = job_seconds;
  setitimer(ITIMER_PROF, &cpu, nullptr);
  alarm(static_cast<unsigned>(job_seconds) * 10);
  return true;
}
inline void begin(const char* kernel) {
  std::printf("kernel\t%s\n", kernel);
  std::fflush(stdout);
}
inline void end(const char* kernel) {
  std::printf("done\t%s\n", kernel);
  std::fflush(stdout);
}
struct copy_at {
  int line, col;
  copy_at(int l, int c) : line(l), col(c) {}
  void* operator()(void* to, const void* from, size_t n) const {
    return copy(line, col, to, from, n);
  }
};
struct set_at {
  int line, col;
  set_at(int l, int c) : line(l), col(c) {}
  void* operator()(void* to, int v, size_t n) const { return set(line, col, to, v, n); }
};

inline void reset() {
  std::unique_lock<std::shared_mutex> l(mu);
  regions.clear();
  errors.clear();
}

} // namespace fmr

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
template <class T> T __shfl_xor_sync(unsigned int, T v, int m, int width = 32) {
  long l = fmr::lane(), s = l ^ m;
  return fmr::shuffle(v, s / width == l / width ? s : l);
}
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
FMR_MINMAX(float, float, float)
FMR_MINMAX(double, double, double)
FMR_MINMAX(double, float, double)
FMR_MINMAX(double, double, float)
#undef FMR_MINMAX
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
