// The race checker: verdicts on small kernels, witnesses that are real, race-free
// verdicts against brute force on small launches, the budget.
#include "tests/frontend/frontend_test_util.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace funmem;
using namespace funmem::frontend;
using namespace funmem::frontend_test;
namespace fs = std::filesystem;

TEST_CASE("verdicts: disjoint writes, neighbours, barriers", "[frontend]") {
  CHECK(verdict("__global__ void k(float* a, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (i < n) a[i] = a[i] + 1;\n}\n") == Verdict::RaceFree);
  CHECK(verdict("__global__ void k(float* a, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (i + 1 < n) a[i] = a[i + 1];\n}\n") == Verdict::Race);
  // Every thread writes a[0]: a race as soon as there are two threads.
  CHECK(verdict("__global__ void k(float* a) { a[0] = threadIdx.x; }\n") == Verdict::Race);
  // ... unless the launch has one thread.
  CHECK(verdict("__global__ void k(float* a) { a[0] = threadIdx.x; }\n",
                {eq(v("blockDim_x"), 1), eq(v("gridDim_x"), 1)}) == Verdict::RaceFree);
  // Shared memory: the barrier separates the write from the neighbour's read.
  const char* tile = "__global__ void k(float* a) {\n"
                     "  __shared__ float t[256];\n"
                     "  if (blockDim.x > 255) return;\n"
                     "  t[threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x];\n"
                     "  BARRIER\n"
                     "  a[blockIdx.x * blockDim.x + threadIdx.x] = t[threadIdx.x + 1];\n}\n";
  std::string with = tile, without = tile;
  with.replace(with.find("BARRIER"), 7, "__syncthreads();");
  without.replace(without.find("BARRIER"), 7, "");
  CHECK(verdict(with) == Verdict::RaceFree);
  CHECK(verdict(without) == Verdict::Race);
}

TEST_CASE("race witnesses are real and race-free verdicts survive brute force",
          "[frontend][property]") {
  // a[c1*i + c2] = a[c3*i + c4] for i < n (one thread per i): the verdict against every
  // launch with blockDim.x, gridDim.x <= 3 and n <= 8.
  rc::prop("affine kernels", [] {
    const int c1 = *rc::gen::inRange(0, 3), c2 = *rc::gen::inRange(0, 3);
    const int c3 = *rc::gen::inRange(0, 3), c4 = *rc::gen::inRange(0, 3);
    const std::string code = "__global__ void k(int* a, int n) {\n"
                             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "  if (i < n) a[" +
                             std::to_string(c1) + " * i + " + std::to_string(c2) + "] = a[" +
                             std::to_string(c3) + " * i + " + std::to_string(c4) + "];\n}\n";
    ExtractResult r = extract(code, "p.cu");
    RC_ASSERT(r.errors.empty());
    KernelVerdict kv = check_kernel(r.kernels.at(0), RaceOptions{});
    bool race = false;
    for (int bd = 1; bd <= 3; ++bd)
      for (int gd = 1; gd <= 3; ++gd)
        for (int n = 0; n <= 8; ++n) {
          int threads = std::min(bd * gd, n);
          for (int x = 0; x < threads; ++x)
            for (int y = 0; y < threads; ++y)
              if (x != y && (c1 * x + c2 == c1 * y + c2 || c1 * x + c2 == c3 * y + c4)) race = true;
        }
    // Every one of these kernels is decided: a checker answering `unknown` fails here.
    RC_ASSERT(kv.verdict != Verdict::Unknown);
    RC_CLASSIFY(race, "racy");
    if (kv.verdict == Verdict::RaceFree) RC_ASSERT(!race);
    if (kv.verdict == Verdict::Race) {
      RC_ASSERT(race);
      RC_ASSERT(kv.witness.has_value());
    }
  });
}

TEST_CASE("2-d tiles with a fixed block size: verdicts survive brute force",
          "[frontend][property]") {
  // out[y * S + x] for x = blockIdx.y * B + threadIdx.x < h, y = blockIdx.x * B +
  // threadIdx.y < w (a transpose's store), B fixed by the launch facts, S one of h,
  // h + 1, h - 1, 2: every launch with gridDim <= 3 and w, h <= 6 enumerated.
  rc::prop("tiled stores", [] {
    const int b = *rc::gen::inRange(1, 4);
    const int si = *rc::gen::inRange(0, 4);
    const char* strides[] = {"h", "h + 1", "h - 1", "2"};
    const std::string code = "__global__ void k(int* out, int w, int h) {\n"
                             "  int x = blockIdx.y * " +
                             std::to_string(b) +
                             " + threadIdx.x;\n"
                             "  int y = blockIdx.x * " +
                             std::to_string(b) +
                             " + threadIdx.y;\n"
                             "  if (x < h && y < w) out[y * (" +
                             strides[si] + ") + x] = 0;\n}\n";
    RC_TAG(code);
    ExtractResult r = extract(code, "t.cu");
    RC_ASSERT(r.errors.empty());
    RaceOptions o;
    o.facts = {Formula::cmp(v("blockDim_x"), Rel::Eq, Poly(b)),
               Formula::cmp(v("blockDim_y"), Rel::Eq, Poly(b))};
    KernelVerdict kv = check_kernel(r.kernels.at(0), o);
    bool race = false;
    for (int gx = 1; gx <= 3; ++gx)
      for (int gy = 1; gy <= 3; ++gy)
        for (int w = 0; w <= 6; ++w)
          for (int h = 0; h <= 6; ++h) {
            const int stride[] = {h, h + 1, h - 1, 2};
            std::map<int, int> owner;
            for (int bx = 0; bx < gx; ++bx)
              for (int by = 0; by < gy; ++by)
                for (int tx = 0; tx < b; ++tx)
                  for (int ty = 0; ty < b; ++ty) {
                    int x = by * b + tx, y = bx * b + ty;
                    if (!(x < h && y < w)) continue;
                    int id = ((bx * gy + by) * b + tx) * b + ty;
                    auto [it, fresh] = owner.emplace(y * stride[si] + x, id);
                    if (!fresh && it->second != id) race = true;
                  }
          }
    RC_ASSERT(kv.verdict != Verdict::Unknown);
    if (kv.verdict == Verdict::RaceFree) RC_ASSERT(!race);
    if (kv.verdict == Verdict::Race) RC_ASSERT(race);
    if (si == 0) RC_ASSERT(kv.verdict == Verdict::RaceFree); // the transpose's own layout
  });
}

TEST_CASE("a column written while the diagonal is read: verdicts survive brute force",
          "[frontend][property]") {
  // Thread t writes a[r*w + C + t] for 1 <= r < R and reads the diagonal a[c*(w + 1)]
  // for c < D (LUD's perimeter shape, where the diagonal is boxed to be separated).
  rc::prop("column against diagonal", [] {
    const int C = *rc::gen::inRange(0, 4), D = *rc::gen::inRange(1, 4), R = *rc::gen::inRange(1, 4);
    const std::string code = "__global__ void k(float* a, int w) {\n"
                             "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "  if (" +
                             std::to_string(C) +
                             " + t >= w) return;\n"
                             "  float x = 0;\n"
                             "  for (int c = 0; c < " +
                             std::to_string(D) +
                             "; c++) x += a[c * (w + 1)];\n"
                             "  for (int r = 1; r < " +
                             std::to_string(R) + "; r++) a[r * w + " + std::to_string(C) +
                             " + t] = x;\n}\n";
    RC_TAG(code);
    ExtractResult r = extract(code, "d.cu");
    RC_ASSERT(r.errors.empty());
    const int B = *rc::gen::inRange(1, 4); // the block size the launch fixes
    RaceOptions o;
    o.facts = {Formula::cmp(v("blockDim_x"), Rel::Eq, Poly(B))};
    KernelVerdict kv = check_kernel(r.kernels.at(0), o);
    bool race = false;
    for (int threads = B; threads <= 4 * B; threads += B)
      for (int w = 0; w <= 8; ++w) {
        int active = std::max(0, std::min(threads, w - C));
        for (int t = 0; t < active; ++t)
          for (int rr = 1; rr < R; ++rr)
            for (int c = 0; c < D; ++c)
              if (rr * w + C + t == c * (w + 1) && active >= 2) race = true;
      }
    if (kv.verdict == Verdict::RaceFree) RC_ASSERT(!race);
    if (kv.verdict == Verdict::Race) RC_ASSERT(race);
    if (C >= D) RC_ASSERT(kv.verdict == Verdict::RaceFree);
  });
}

TEST_CASE("a spent budget leaves a kernel unknown, never race-free", "[frontend]") {
  const std::string code =
      test::slurp(fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "cuda" / "lud-internal.cu");
  ExtractResult r = extract(code, "lud-internal.cu");
  REQUIRE(r.kernels.size() == 1);
  RaceOptions o;
  o.budget_ms = 1;
  KernelVerdict v = check_kernel(r.kernels[0], o);
  CHECK(v.verdict == Verdict::Unknown);
  CHECK(v.reason.find("budget of 1 ms") != std::string::npos);
}

TEST_CASE("a race witness is an execution of C: parameters in their types, no wrapped value",
          "[frontend]") {
  // n = 2^32 - 1: C's i is threadIdx.x - 1 (mod 2^32), so only thread 0 writes a[0];
  // the polynomial threadIdx.x + n leaves unsigned int, and replayed as a mathematical
  // integer it would have every thread write a[0].
  const std::string wrap = "__global__ void k(int* a, unsigned n) {\n"
                           "  __requires(n == 4294967295u);\n"
                           "  __requires(gridDim.x == 1);\n"
                           "  unsigned i = threadIdx.x + n;\n"
                           "  if (i > 4294967290u) a[0] = 1;\n}\n";
  ExtractResult r = extract(wrap, "wrap.cu");
  REQUIRE(r.errors.empty());
  KernelVerdict kv = check_kernel(r.kernels.at(0), RaceOptions{});
  INFO(kv.reason);
  CHECK(kv.verdict != Verdict::Race);
  // cols == q * blockDim.x + 1 compares as unsigned int: a model may pick cols beyond
  // int. The witness's parameters lie in their types (corpus/cuda/antidiagonal-corner.cu).
  const std::string corner =
      test::slurp(fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "cuda" / "antidiagonal-corner.cu");
  ExtractResult c = extract(corner, "antidiagonal-corner.cu");
  REQUIRE(c.errors.empty());
  KernelVerdict cv = check_kernel(c.kernels.at(0), RaceOptions{});
  INFO(cv.reason);
  REQUIRE(cv.verdict == Verdict::Race);
  REQUIRE(cv.witness.has_value());
  for (const char* p : {"cols", "diag", "q"}) {
    INFO(p);
    REQUIRE(cv.witness->launch.count(p));
    CHECK(cv.witness->launch.at(p) >= -(int64_t{1} << 31));
    CHECK(cv.witness->launch.at(p) < (int64_t{1} << 31));
  }
}

TEST_CASE("a race-free verdict says the size 1 it assumes in dimensions the kernel does not use",
          "[frontend]") {
  // Threads (0,0,0) and (0,1,0) of a dim3(2, 2) block write a[0]: the 1-d kernel is
  // race-free only for blocks and grids of size 1 in y and z.
  const std::string code = "__global__ void k(int* a) {\n"
                           "  a[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;\n}\n";
  ExtractResult r = extract(code, "k.cu");
  REQUIRE(r.errors.empty());
  KernelVerdict kv = check_kernel(r.kernels.at(0), RaceOptions{});
  REQUIRE(kv.verdict == Verdict::RaceFree);
  CHECK(kv.reason.find("assumes blocks and grid of size 1 in y and z") != std::string::npos);
  // Facts that fix them make the assumption unnecessary.
  RaceOptions fixed;
  fixed.facts = {eq(v("blockDim_y"), 1), eq(v("blockDim_z"), 1), eq(v("gridDim_y"), 1),
                 eq(v("gridDim_z"), 1)};
  KernelVerdict kf = check_kernel(r.kernels.at(0), fixed);
  REQUIRE(kf.verdict == Verdict::RaceFree);
  CHECK(kf.reason.find("size 1 in") == std::string::npos);
}
