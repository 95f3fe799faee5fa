// GPUVerify's specifications in the extractor: assertions and loop invariants checked,
// never trusted; its equality abstraction, cuRAND, __mul24 and textures.
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

TEST_CASE("GPUVerify's assertions are checked, never trusted", "[frontend]") {
  RaceOptions o;
  o.facts = facts({"blockDim.x == 64"});
  KernelVerdict v = check_kernel(one("__global__ void k(int* a, int n) {\n"
                                     "  __requires(n > 4);\n"
                                     "  __assert(blockDim.x <= 64);\n"
                                     "  for (int i = 0; i < n; i++) __assert(i < n + 1);\n"
                                     "  __assume(n < 100);\n"
                                     "  __assert(n < 200);\n"
                                     "  if (n < 3) __assert(0);\n"
                                     "  __assert(__no_read(a));\n"
                                     "  a[blockIdx.x * blockDim.x + threadIdx.x] = n;\n}\n"),
                                 o);
  CHECK(v.verdict == Verdict::RaceFree);
  REQUIRE(v.assertions.size() == 5);
  CHECK(v.assertions[0].second == "holds");       // the launch fact
  CHECK(v.assertions[1].second == "holds");       // the loop's bound
  CHECK(v.assertions[2].second == "may fail");    // an assumption is not trusted
  CHECK(v.assertions[3].second == "holds");       // a path the precondition excludes
  CHECK(v.assertions[4].second == "not checked"); // a GPUVerify predicate
  CHECK(v.assertions[2].first.pos.line == 6);
}

TEST_CASE("GPUVerify's loop invariants are checked at the loop's head, never trusted",
          "[frontend]") {
  KernelVerdict v = check_kernel(
      one("__global__ void k(int* a, int n) {\n"
          "  __requires(n > 4);\n"
          "  int s = 0;\n"
          "  for (int i = 0; __invariant(i <= n), __invariant(i < n), i < n; i++) a[i] = 0;\n"
          "  for (int j = 2 * n; __invariant(j >= n - 1), __invariant(j > n), j >= n; j--)\n"
          "    a[j] = 0;\n"
          "  for (int t = 0; __invariant(t % 4 == 0), __invariant(t <= n + 3), t < n; t += 4)\n"
          "    a[t] = 0;\n"
          "  for (int u = 0; __invariant(s >= 0), u < n; u++) s += u;\n"
          "  for (int w = 0; __invariant(__implies(w > 0, s >= 0)), w < n; w++) a[w] = s;\n"
          "  while (__invariant(s >= 0), s < n) s++;\n"
          "}\n"),
      RaceOptions{});
  std::vector<std::string> got;
  for (const auto& [a, status] : v.assertions) {
    CHECK(a.kind == "invariant");
    got.push_back(a.text + ": " + status);
  }
  CHECK(got == std::vector<std::string>{"i <= n: holds",
                                        "i < n: may fail", // not after the last iteration
                                        "j >= n - 1: holds", "j > n: may fail", "t % 4 == 0: holds",
                                        "t <= n + 3: holds",
                                        "s >= 0: not checked", // s changes in the body
                                        "__implies(w > 0, s >= 0): not checked",
                                        "s >= 0: not checked"}); // a loop not summarised
  // A `for` loop the extractor does not summarise (a step of *= 3): not checked either.
  KernelVerdict u = check_kernel(one("__global__ void k(int* a, int n) {\n"
                                     "  for (int v = 1; __invariant(v >= 1), v < n; v *= 3)\n"
                                     "    a[threadIdx.x] = v;\n}\n"),
                                 RaceOptions{});
  REQUIRE(u.assertions.size() == 1);
  CHECK(u.assertions[0].first.kind == "invariant");
  CHECK(u.assertions[0].second == "not checked");
}

TEST_CASE("GPUVerify's equality abstraction, cuRAND, __mul24 and textures", "[frontend]") {
  // Every thread writes 0 to p[0]: a race in CUDA, none under equal writes.
  const char* zero = "__global__ void k(int* p) {\n  p[0] = 0;\n}\n";
  CHECK(verdict(zero) == Verdict::Race);
  RaceOptions eq;
  eq.equal_writes = true;
  KernelVerdict v = check_kernel(one(zero), eq);
  CHECK(v.verdict == Verdict::RaceFree);
  CHECK(v.reason.find("assumes two writes of one value do not race") != std::string::npos);
  // Values that differ between threads still race.
  CHECK(check_kernel(one("__global__ void k(int* p) {\n  p[0] = threadIdx.x;\n}\n"), eq).verdict ==
        Verdict::Race);
  // Values compared after their conversions: n and (unsigned char)n, (bool)n differ
  // (never race-free; a witness needs two values the search knows to differ).
  for (const char* cast : {"(unsigned char)n", "(bool)n", "(short)n"})
    CHECK(check_kernel(one(std::string("__global__ void k(int* a, int n) {\n"
                                       "  if (threadIdx.x == 0) a[0] = n;\n"
                                       "  else a[0] = ") +
                           cast + ";\n}\n"),
                       eq)
              .verdict != Verdict::RaceFree);
  // ... and a conversion that keeps every value keeps the equality.
  CHECK(check_kernel(one("__global__ void k(long* a, int n) {\n"
                         "  if (threadIdx.x == 0) a[0] = n;\n"
                         "  else a[0] = (long)n;\n}\n"),
                     eq)
            .verdict == Verdict::RaceFree);
  // One value stored in 4 bytes at a and in 2 at a + 2: byte a + 2 gets 0 and 1.
  CHECK(check_kernel(one("__global__ void k(char* a) {\n"
                         "  if (threadIdx.x == 0) *(int*)a = 1;\n"
                         "  else *(short*)(a + 2) = 1;\n}\n"),
                     eq)
            .verdict != Verdict::RaceFree);
  // A shared variable's element is one block's: alike across blocks only with one block.
  const char* shared = "__global__ void k(int* p) {\n  __shared__ int A[4];\n  p[0] = A[0];\n}\n";
  CHECK(check_kernel(one(shared), eq).verdict != Verdict::RaceFree);
  eq.facts = facts({"gridDim.x == 1"});
  CHECK(check_kernel(one(shared), eq).verdict == Verdict::RaceFree);
  // ... and only when the kernel never writes it.
  CHECK(check_kernel(one("__global__ void k(int* p) {\n  __shared__ int A[4];\n"
                         "  A[threadIdx.x % 4] = threadIdx.x;\n  p[0] = A[0];\n}\n"),
                     eq)
            .verdict != Verdict::RaceFree);
  // A shared variable written the same value (the address of a shared array) by every
  // thread of its block, then read by each thread after its own store: the read sees
  // that value whatever other thread stores. Not before its own store, not after a
  // store that may not run, not when another store writes something else.
  eq.facts.clear();
  auto own = [&](const std::string& body) {
    return check_kernel(one("__global__ void k(int* r) {\n  __shared__ int A[4];\n"
                            "  __shared__ int B[4];\n  __shared__ int* p;\n" +
                            body + "}\n"),
                        eq)
        .verdict;
  };
  CHECK(own("  p = A;\n  int* q = p;\n  (void)q;\n") == Verdict::RaceFree);
  CHECK(own("  int* q = p;\n  p = A;\n  (void)q;\n") == Verdict::Race);
  CHECK(own("  if (threadIdx.x < 5) p = A;\n  int* q = p;\n  (void)q;\n") == Verdict::Race);
  CHECK(own("  p = A;\n  if (threadIdx.x == 0) p = B;\n  int* q = p;\n  (void)q;\n") ==
        Verdict::Race);
  CHECK(verdict("__global__ void k(int* r) {\n  __shared__ int A[4];\n  __shared__ int* p;\n"
                "  p = A;\n  int* q = p;\n  (void)q;\n}\n") == Verdict::Race);
  // cuRAND: a thread's own state is race-free; a shared plain state races; an MTGP32
  // state serves up to 256 threads of one block.
  CHECK(verdict("__global__ void k(curandState* s, float* a) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  a[i] = curand_uniform(&s[i]);\n}\n") == Verdict::RaceFree);
  CHECK(verdict("__global__ void k(curandState* s, float* a) {\n"
                "  a[blockIdx.x * blockDim.x + threadIdx.x] = curand(s);\n}\n") == Verdict::Race);
  const char* mtgp = "__global__ void k(curandStateMtgp32_t* s, unsigned* a) {\n"
                     "  a[threadIdx.x] = curand(s);\n}\n";
  // (A 256 x 2 block has 512 threads, and blocks in y share the state too: every size
  // is fixed.)
  auto sizes = [](const char* bx, const char* gx) {
    std::vector<Formula> f =
        facts({"blockDim.y == 1", "blockDim.z == 1", "gridDim.y == 1", "gridDim.z == 1"});
    for (const Formula& g : facts({bx, gx}))
      f.push_back(g);
    return f;
  };
  CHECK(verdict(mtgp, sizes("blockDim.x == 256", "gridDim.x == 1")) == Verdict::RaceFree);
  CHECK(verdict(mtgp, sizes("blockDim.x == 512", "gridDim.x == 1")) == Verdict::Race);
  CHECK(verdict(mtgp, sizes("blockDim.x == 256", "gridDim.x == 2")) == Verdict::Race);
  // __mul24 is the product while the operands fit in 24 bits.
  CHECK(verdict("__global__ void k(int* a) {\n"
                "  a[__mul24(blockIdx.x, blockDim.x) + threadIdx.x] = 1;\n}\n",
                facts({"blockDim.x == 256", "gridDim.x == 64"})) == Verdict::RaceFree);
  // Lock-step warps: a warp's scan step reads its left neighbour in the statement that
  // writes its own element; a race in CUDA, none with --warp-sync=32 (within a warp).
  const char* scan = "__global__ void k(int* A) {\n  int t = threadIdx.x;\n"
                     "  unsigned lane = t & 31;\n  if (lane >= 1) A[t] = A[t - 1] + A[t];\n}\n";
  std::vector<Formula> one_warp_block = facts({"blockDim.x == 64", "gridDim.x == 1"});
  // (The lane is an unknown, so the static witness search does not confirm the race;
  // running the kernel does.)
  CHECK(verdict(scan, one_warp_block) == Verdict::Unknown);
  RaceOptions ws;
  ws.facts = one_warp_block;
  ws.warp_sync = 32;
  KernelVerdict wv = check_kernel(one(scan), ws);
  CHECK(wv.verdict == Verdict::RaceFree);
  CHECK(wv.reason.find("assumes warps of 32 run in lock-step") != std::string::npos);
  // Across warps (lane 0 reads the previous warp's last element) it still races.
  CHECK(check_kernel(one("__global__ void k(int* A) {\n  int t = threadIdx.x;\n"
                         "  if (t >= 1) A[t] = A[t - 1] + A[t];\n}\n"),
                     ws)
            .verdict == Verdict::Race);
  // Only within a block: every block writes the same elements (a race across blocks),
  // race-free with --only-intra-group; a race inside a block is still one.
  RaceOptions intra;
  intra.only_intra_group = true;
  const char* per_block = "__global__ void k(int* a) {\n  a[threadIdx.x] = 1;\n}\n";
  CHECK(verdict(per_block) == Verdict::Race);
  KernelVerdict iv = check_kernel(one(per_block), intra);
  CHECK(iv.verdict == Verdict::RaceFree);
  CHECK(iv.reason.find("threads of different blocks not checked") != std::string::npos);
  CHECK(check_kernel(one("__global__ void k(int* a) {\n  a[threadIdx.x / 2] = 1;\n}\n"), intra)
            .verdict == Verdict::Race);
  CHECK(read_gpuverify_header("//pass\n//--blockDim=64 --only-intra-group\n").only_intra_group);
  // A texture is read-only.
  CHECK(verdict("texture<float, 1, cudaReadModeElementType> t;\n"
                "__global__ void k(float* a) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  a[i] = tex1Dfetch(t, i);\n}\n") == Verdict::RaceFree);
}
