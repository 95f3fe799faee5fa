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
#include <condition_variable>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <shared_mutex>
#include <sstream>
#include <string>
#include <tuple>
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

struct uint3 { unsigned int x, y, z; };
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
inline std::vector<int> exit_epoch; // per thread: the barrier interval it returned in
inline std::vector<int> exit_warp_epoch; // and its warp barrier interval
inline std::vector<std::string> errors;
inline thread_local std::vector<Event>* my_events = nullptr;
inline thread_local int epoch = 0, block_id = 0, thread_id = 0, grid_epoch = 0, warp_epoch = 0;
// A construct of the launch the detector does not model (its races are not reported).
inline std::atomic<bool> unmodelled{false};
inline thread_local const char* stack_lo = nullptr;
inline thread_local const char* stack_hi = nullptr;
// Where an out-of-bounds access of the thread goes (allocated at its first one: a
// thread-local array would be cleared at every thread's start).
inline constexpr int64_t kScratchBytes = 1 << 16;
inline thread_local std::unique_ptr<char[]> scratch;
/// A barrier of `expected` threads (std::barrier's arrive_and_wait and arrive_and_drop;
/// the detector's build is C++17, the dialect clang parses the file in).
class Barrier {
public:
  explicit Barrier(int expected) : expected_(expected) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> l(mu_);
    const unsigned long phase = phase_;
    if (++arrived_ >= expected_) {
      next_phase();
      return;
    }
    cv_.wait(l, [&] { return phase_ != phase; });
  }
  void arrive_and_drop() {
    std::lock_guard<std::mutex> l(mu_);
    --expected_;
    if (arrived_ >= expected_ && arrived_ > 0) next_phase();
  }

private:
  void next_phase() {
    arrived_ = 0;
    ++phase_;
    cv_.notify_all();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  int expected_, arrived_ = 0;
  unsigned long phase_ = 0;
};
inline Barrier* block_barrier = nullptr;
// Warps (32 consecutive threads of a block): a barrier each and a slot per thread, for
// the shuffles; a thread that returns drops out of its warp's barrier too.
inline std::vector<Barrier*> warp_barriers;
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
inline int report(int limit = 5);
/// Ends a run that cannot go on (past its work budget, a fault): says why, reports the
/// races of the accesses recorded so far (every thread that accesses memory afterwards
/// waits), and exits with `status`.
inline std::atomic<bool> stopping{false};
[[noreturn]] inline void wait_forever() {
  for (;;)
    pause();
}
/// Set in the thread that reports: a fault there ends the process at once, and the
/// guards' signals go to other threads (which wait), never interrupting the report.
inline thread_local bool reporting = false;
[[noreturn]] inline void stop_run(const char* why, int status) {
  if (reporting) std::_Exit(status);
  if (stopping.exchange(true)) wait_forever();
  reporting = true;
  sigset_t guards;
  sigemptyset(&guards);
  sigaddset(&guards, SIGPROF);
  sigaddset(&guards, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &guards, nullptr);
  std::printf("error\t%s\n", why);
  // Every access in flight ends first; none starts afterwards. (A fault inside the
  // runtime may hold the lock: then what was recorded is not read.)
  bool locked = false;
  for (int i = 0; i < 2000 && !(locked = mu.try_lock()); ++i)
    usleep(1000);
  if (locked) report();
  std::fflush(stdout);
  std::_Exit(status);
}
inline void count_work() {
  if (stopping.load(std::memory_order_relaxed)) wait_forever();
  if (work_limit && work_done.fetch_add(1, std::memory_order_relaxed) + 1 >= work_limit) {
    static char why[128];
    std::snprintf(why, sizeof why,
                  "the run exceeded its work budget (%llu accesses and barrier passes)", work_limit);
    stop_run(why, 3);
  }
}
/// A fault of the kernel (a division by zero, an access through a pointer the detector
/// does not follow): the run stops with the signal's status after reporting.
/// The guards' reasons (read_job writes the seconds in).
inline char cpu_guard_why[128], wall_guard_why[128];
extern "C" inline void on_fault(int sig) {
  const char* why = sig == SIGFPE    ? "the run stopped at an arithmetic exception (a division by zero?)"
                    : sig == SIGSEGV ? "the run stopped at a segmentation fault (a stack overflow?)"
                    : sig == SIGBUS  ? "the run stopped at a bus error"
                    : sig == SIGPROF ? cpu_guard_why
                    : sig == SIGALRM ? wall_guard_why
                                     : "the run stopped at an illegal instruction";
  stop_run(why, 128 + sig);
}
/// A stack of its own for the handler (a fault may be a stack overflow), per thread.
inline thread_local std::unique_ptr<char[]> signal_stack;
inline void alternate_signal_stack() {
  stack_t ss{};
  ss.ss_size = 1 << 16;
  signal_stack.reset(new char[ss.ss_size]);
  ss.ss_sp = signal_stack.get();
  sigaltstack(&ss, nullptr);
}
inline void* out_of_bounds(int64_t n, int line, int col, const char* of) {
  std::lock_guard<std::mutex> l(errors_mu);
  if (errors.size() < 20)
    errors.push_back("out of bounds: " + std::to_string(n) + " byte(s) at " + std::to_string(line) +
                     ":" + std::to_string(col) + (of ? std::string(" of '") + of + "'" : "") +
                     " (block " + std::to_string(block_id) + " thread " +
                     std::to_string(thread_id) + ")");
  if (n > kScratchBytes) std::abort();
  if (!scratch) scratch.reset(new char[kScratchBytes]);
  return scratch.get();
}
/// An access through a subscript of a named array (`a[i]`, `s[i][j]`): outside the
/// array's bytes it is out of bounds, wherever it lands (another object next to it too).
inline void* access(const void* p, int64_t n, int kind, int line, int col,
                    const void* array = nullptr, size_t array_bytes = 0,
                    const char* array_name = nullptr) {
  const char* c = static_cast<const char*>(p);
  count_work();
  if (array) {
    const char* a = static_cast<const char*>(array);
    if (c < a || n < 0 || c + n > a + array_bytes) return out_of_bounds(n, line, col, array_name);
  }
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
  return out_of_bounds(n, line, col, nullptr);
}
/// An address of any qualification (`volatile` ones too).
inline const void* addr(const volatile void* p) { return const_cast<const void*>(p); }
/// `v` as a pointer of type P (of any qualification: GCC's static_cast refuses a
/// pointer to a `__restrict` pointer).
template <class P> P as(void* v) {
  P out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}
template <class T> T* rd(T* p, int line, int col) {
  return as<T*>(access(addr(p), sizeof(T), Read, line, col));
}
template <class T> T* wr(T* p, int line, int col) {
  return as<T*>(access(addr(p), sizeof(T), Write, line, col));
}
template <class T> T* rw(T* p, int line, int col) {
  access(addr(p), sizeof(T), Read, line, col);
  return as<T*>(access(addr(p), sizeof(T), Write, line, col));
}
// The same, for an element of the named array `a` (its bytes checked).
template <class T, class A> T* rd_in(T* p, const A& a, const char* n, int line, int col) {
  return as<T*>(access(addr(p), sizeof(T), Read, line, col, addr(&a), sizeof(A), n));
}
template <class T, class A> T* wr_in(T* p, const A& a, const char* n, int line, int col) {
  return as<T*>(access(addr(p), sizeof(T), Write, line, col, addr(&a), sizeof(A), n));
}
template <class T, class A> T* rw_in(T* p, const A& a, const char* n, int line, int col) {
  access(addr(p), sizeof(T), Read, line, col, addr(&a), sizeof(A), n);
  return as<T*>(access(addr(p), sizeof(T), Write, line, col, addr(&a), sizeof(A), n));
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
  T* q = as<T*>(access(p, sizeof(T), Atomic, 0, 0));
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
/// Runs one thread of a block (in a worker of the pool below).
inline void thread_main(ThreadStart* s) {
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
  const size_t me = static_cast<size_t>(s->block) * blockDim.x * blockDim.y * blockDim.z +
                   static_cast<size_t>(s->thread);
  exit_epoch[me] = epoch;
  exit_warp_epoch[me] = warp_epoch;
  block_barrier->arrive_and_drop();
  warp_barriers[static_cast<size_t>(s->thread) / 32]->arrive_and_drop();
}

/// The POSIX threads that run a block's threads, kept from block to block and from
/// launch to launch (creating them was most of a small launch's time). Worker `k` runs
/// thread `k` of each block; `run` returns when every thread of the block has returned.
/// Never destroyed: its workers wait on it until the process exits.
class Pool {
public:
  void run(std::vector<ThreadStart>& starts) {
    std::unique_lock<std::mutex> l(mu_);
    while (workers_ < starts.size())
      spawn(workers_++);
    starts_ = &starts;
    pending_ = starts.size();
    ++generation_;
    start_.notify_all();
    done_.wait(l, [&] { return pending_ == 0; });
    starts_ = nullptr;
  }

private:
  struct Worker {
    Pool* pool;
    size_t index;
  };
  void spawn(size_t index) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 2 << 20);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    if (pthread_create(&t, &attr, work, new Worker{this, index}) != 0) {
      std::printf("error\tcannot start thread %zu\n", index);
      std::exit(3);
    }
    pthread_attr_destroy(&attr);
  }
  static void* work(void* p) {
    std::unique_ptr<Worker> w(static_cast<Worker*>(p));
    Pool& pool = *w->pool;
    alternate_signal_stack();
    unsigned long seen = 0;
    for (;;) {
      ThreadStart* s = nullptr;
      {
        std::unique_lock<std::mutex> l(pool.mu_);
        pool.start_.wait(l, [&] {
          return pool.generation_ != seen && pool.starts_ && w->index < pool.starts_->size();
        });
        seen = pool.generation_;
        s = &(*pool.starts_)[w->index];
      }
      thread_main(s);
      std::lock_guard<std::mutex> l(pool.mu_);
      if (--pool.pending_ == 0) pool.done_.notify_one();
    }
  }
  std::mutex mu_;
  std::condition_variable start_, done_;
  std::vector<ThreadStart>* starts_ = nullptr;
  size_t workers_ = 0, pending_ = 0;
  unsigned long generation_ = 0;
};
inline Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

/// Whether the blocks run from the last index to the first (a job's `@@reverse=1`).
inline bool reverse_blocks = false;
/// Runs `body(arg)` in every thread of the launch, a block at a time, in the order of
/// their index or the reverse.
inline void launch(dim3 g, dim3 b, void (*body)(void*), void* arg) {
  gridDim = g;
  blockDim = b;
  const int threads = static_cast<int>(b.x * b.y * b.z), blocks = static_cast<int>(g.x * g.y * g.z);
  events.assign(static_cast<size_t>(threads) * blocks, {});
  exit_epoch.assign(static_cast<size_t>(threads) * blocks, -1);
  exit_warp_epoch.assign(static_cast<size_t>(threads) * blocks, -1);
  for (int k = 0; k < blocks; ++k) {
    const int blk = reverse_blocks ? blocks - 1 - k : k;
    Barrier bar(threads);
    block_barrier = &bar;
    std::vector<std::unique_ptr<Barrier>> warps;
    warp_barriers.clear();
    for (int w = 0; w * 32 < threads; ++w) {
      warps.push_back(std::make_unique<Barrier>(std::min(32, threads - w * 32)));
      warp_barriers.push_back(warps.back().get());
    }
    warp_slots.assign(static_cast<size_t>(threads), 0);
    std::vector<ThreadStart> starts(static_cast<size_t>(threads));
    for (int t = 0; t < threads; ++t)
      starts[static_cast<size_t>(t)] = {
          body,
          arg,
          {static_cast<unsigned>(t) % b.x, (static_cast<unsigned>(t) / b.x) % b.y,
           static_cast<unsigned>(t) / (b.x * b.y)},
          {static_cast<unsigned>(blk) % g.x, (static_cast<unsigned>(blk) / g.x) % g.y,
           static_cast<unsigned>(blk) / (g.x * g.y)},
          blk,
          t};
    pool().run(starts);
  }
}

/// A warp shuffle: every thread of the warp publishes `v`, then reads lane `src`'s
/// (its own value when `src` is outside the warp or the width's segment).
template <class T> T shuffle(T v, long src) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "a shuffle of a wider type");
  const size_t me = static_cast<size_t>(thread_id), base = me / 32 * 32;
  Barrier* w = warp_barriers[me / 32];
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
/// A construct of the run the emulation does not model: said once, and no race is
/// reported.
inline void not_modelled(const char* what) {
  if (!unmodelled.exchange(true)) {
    std::lock_guard<std::mutex> l(errors_mu);
    errors.push_back(std::string(what) + " is not modelled: no race is reported");
  }
}
/// `__syncwarp(mask)`: a barrier of the thread's warp (32 consecutive threads of the
/// block) that orders the memory accesses on its two sides, where the mask names every
/// thread of the warp; another mask is not modelled.
inline void warp_barrier(unsigned mask) {
  const int threads = static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
  const int w = thread_id / 32, lanes = std::min(32, threads - w * 32);
  const unsigned all = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
  if ((mask & all) != all) {
    not_modelled("a __syncwarp whose mask leaves out threads of its warp");
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
inline int report(int limit) {
  if (unmodelled.exchange(false)) limit = 0;
  std::vector<Event> all;
  for (auto& v : events)
    all.insert(all.end(), v.begin(), v.end());
  // One of each access (a loop repeats them), then the pairs at overlapping bytes: at
  // most kComparisons of them, a count, so the search ends alike on every machine.
  auto key = [](const Event& e) {
    return std::make_tuple(e.region, e.off, e.size, e.kind, e.block, e.thread, e.epoch,
                           e.grid_epoch, e.warp_epoch, e.line, e.col);
  };
  std::sort(all.begin(), all.end(),
            [&](const Event& a, const Event& b) { return key(a) < key(b); });
  all.erase(std::unique(all.begin(), all.end(),
                        [&](const Event& a, const Event& b) { return key(a) == key(b); }),
            all.end());
  constexpr unsigned long long kComparisons = 200'000'000;
  unsigned long long compared = 0;
  int found = 0;
  std::vector<std::string> seen;
  for (size_t i = 0; i < all.size() && found < limit; ++i) {
    const Event& a = all[i];
    for (size_t j = i + 1;
         j < all.size() && all[j].region == a.region && all[j].off < a.off + a.size; ++j) {
      if (++compared > kComparisons) {
        errors.push_back("the race search stopped after 200000000 pairs of accesses");
        i = all.size();
        break;
      }
      const Event& b = all[j];
      if (a.kind == Read && b.kind == Read) continue;
      // Atomics of one width at one address are ordered; of different widths they race.
      if (a.kind == Atomic && b.kind == Atomic && a.size == b.size && a.off == b.off) continue;
      if (a.block == b.block && a.thread == b.thread) continue;
      bool same_block = a.block == b.block;
      // A barrier orders them, unless the earlier one's thread returned before it (it
      // never arrived: nothing of its last interval is ordered with what follows).
      auto first_thread = [&](const Event& first) {
        return static_cast<size_t>(first.block) * blockDim.x * blockDim.y * blockDim.z +
               static_cast<size_t>(first.thread);
      };
      if (same_block && a.epoch != b.epoch) {
        const Event& first = a.epoch < b.epoch ? a : b;
        if (exit_epoch[first_thread(first)] != first.epoch) continue;
      }
      // A __syncwarp orders the accesses of its warp's threads on its two sides, with the
      // same exception (the other lanes pass it without a lane that has returned).
      if (same_block && a.thread / 32 == b.thread / 32 && a.warp_epoch != b.warp_epoch) {
        const Event& first = a.warp_epoch < b.warp_epoch ? a : b;
        if (exit_warp_epoch[first_thread(first)] != first.warp_epoch) continue;
      }
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
/// Address space around each buffer that no object occupies: an index past either end
/// by less (any `int` index of elements up to 8 bytes) is out of bounds, never an
/// access of another buffer.
inline constexpr size_t kGap = size_t{1} << 34;
inline std::vector<std::pair<void*, size_t>> reservations; // unmapped by reset()
/// A buffer for a pointer parameter: `count` elements, registered as global memory, alone
/// in its reservation of address space.
template <class T> T* buffer(const char* name, size_t count) {
  size_t bytes = sizeof(T) * count, page = 4096, len = (bytes + page) / page * page;
  void* r = mmap(nullptr, len + 2 * kGap, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  char* p = static_cast<char*>(r) + kGap;
  if (r == MAP_FAILED || mprotect(p, len, PROT_READ | PROT_WRITE) != 0) {
    std::printf("error\tcannot map a buffer of %zu bytes\n", bytes);
    std::exit(3);
  }
  reservations.push_back({r, len + 2 * kGap});
  for (size_t i = 0; i < count && !zero_fill; ++i) {
    if constexpr (std::is_integral_v<T>)
      reinterpret_cast<T*>(p)[i] = static_cast<T>((i * 7 + 3) % count);
    else if constexpr (std::is_floating_point_v<T>)
      reinterpret_cast<T*>(p)[i] = static_cast<T>(i % 17) * static_cast<T>(0.5);
  }
  reg(p, bytes, name, false);
  return reinterpret_cast<T*>(p);
}
/// `*at = v` through its bytes: a constant member is filled as the others are.
template <class T, class V> void put(T* at, V v) {
  using U = std::remove_cv_t<T>;
  U u = static_cast<U>(v);
  std::memcpy(const_cast<void*>(addr(at)), &u, sizeof u);
}
/// An error of the run (a kernel the harness cannot launch).
inline void fail(const char* why) {
  std::lock_guard<std::mutex> l(errors_mu);
  errors.push_back(why);
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
  /// The first kernel to run (`@@from`: the job continues after a kernel that stopped).
  long from() const {
    for (const auto& [k, v] : args)
      if (k == "@@from") return static_cast<long>(v);
    return 0;
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
  if (!job_started)
    for (int sig : {SIGFPE, SIGSEGV, SIGBUS, SIGILL, SIGPROF, SIGALRM})
    {
      struct sigaction sa{};
      sa.sa_handler = on_fault;
      sa.sa_flags = SA_ONSTACK;
      sigaction(sig, &sa, nullptr);
    }
  if (!job_started) alternate_signal_stack();
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
  reverse_blocks = false;
  for (const auto& [k, v] : j.args)
    if (k == "@@reverse") reverse_blocks = v != 0;
  work_done = 0;
  // The guards: seconds of the process's CPU time (its threads' work, whatever else the
  // machine runs) against a loop that touches no memory, and ten times as many seconds
  // of wall-clock time against threads that wait forever.
  std::snprintf(cpu_guard_why, sizeof cpu_guard_why,
                "the run used its %d s of CPU time (a loop that touches no memory?)", job_seconds);
  std::snprintf(wall_guard_why, sizeof wall_guard_why,
                "the run waited %d s (threads that wait forever?)", job_seconds * 10);
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
  for (const auto& [r, n] : reservations)
    munmap(r, n);
  reservations.clear();
}

} // namespace fmr

// The CUDA device API the kernels call (funmem_race_cuda.h) follows: CMake appends it
// to this text.
