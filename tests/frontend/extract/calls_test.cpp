// Device functions the extractor follows through their returned pointers, calls through
// function pointers, operands selected or not evaluated.
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

TEST_CASE("a pointer returned by a one-statement device function is followed", "[frontend]") {
  const std::string fn = "__device__ int* at(int* p, int k) {\n"
                         "  __ensures(__return_val_ptr() == p + k);\n"
                         "  return p + k;\n}\n";
  CHECK(verdict(fn + "__global__ void k(int* a) {\n  at(a, blockIdx.x * blockDim.x)[threadIdx.x] "
                     "= 1;\n}\n") == Verdict::RaceFree);
  CHECK(verdict(fn + "__global__ void k(int* a) {\n  int* q = at(a, threadIdx.x / 2);\n"
                     "  q[0] = 1;\n}\n") == Verdict::Race);
  // More than a return: not followed.
  CHECK(verdict("__device__ int* at(int* p, int k) {\n  int j = k;\n  return p + j;\n}\n"
                "__global__ void k(int* a) {\n  at(a, threadIdx.x)[0] = 1;\n}\n") ==
        Verdict::Unsupported);
  CHECK(problems_of("__device__ int* at(int* p, int k) {\n  int j = k;\n  return p + j;\n}\n"
                    "__global__ void k(int* a) {\n  at(a, threadIdx.x)[0] = 1;\n}\n")
            .find("a pointer returned by the call") != std::string::npos);
}

TEST_CASE("a device function ending in if (c) return a, else ..., is followed", "[frontend]") {
  auto code = [](const std::string& store) {
    return "__device__ int pick(int* a, int i) {\n"
           "  if (i > 3) return a[i];\n"
           "  else if (i > 1) { return a[0]; }\n"
           "  else return 0;\n}\n"
           "__device__ void put(int* a, int i) {\n"
           "  if (i == 0) return;\n"
           "  else " +
           store +
           ";\n}\n"
           "__global__ void k(int* a, int* b) {\n"
           "  int i = threadIdx.x;\n"
           "  b[i] = pick(a, i);\n"
           "  put(a, i);\n}\n";
  };
  CHECK(verdict(code("a[i] = 1"), facts({"gridDim.x == 1"})) == Verdict::RaceFree);
  // Thread 1 writes a[0], which threads 2 and 3 read.
  CHECK(verdict(code("a[i - 1] = 1"), facts({"gridDim.x == 1"})) == Verdict::Race);
}

TEST_CASE("a call through a function pointer reaches every function that converts to its type",
          "[frontend]") {
  // `noexcept`, `noreturn` and parameters' `noescape` are dropped by the conversion to a
  // plain function pointer: such a function is a candidate of a call through one.
  const std::string head = "typedef void (*FP)(int*, int);\n"
                           "__device__ void ok(int* p, int i) { p[i + 1] = 1; }\n";
  const std::string call = "__global__ void k(int* a, int c) {\n  FP f = &ok;\n  if (c) f = ";
  const std::string tail = ";\n  f(a, blockIdx.x * blockDim.x + threadIdx.x);\n}\n";
  const std::pair<std::string, std::string> racy[] = {
      {"__device__ void bad(int* __attribute__((noescape)) p, int i) { p[0] = i; }\n", "&bad"},
      {"__device__ __attribute__((noreturn)) void bad(int* p, int i) { p[0] = i; for (;;) {} }\n",
       "&bad"},
      {"__device__ void bad(int* p, int i) noexcept { p[0] = i; }\n", "&bad"},
      {"", "[](int* __attribute__((noescape)) p, int i) { p[0] = i; }"},
      {"", "[](auto* p, int i) __attribute__((noreturn)) { p[0] = i; for (;;) {} }"}};
  // (Not `race` without a run: the call's accesses are over-approximations, a branch that
  // may not run; funmem-extract's run observes it, function-pointer-noescape-race.cu.)
  for (const auto& [fn, target] : racy) {
    INFO(fn << target);
    CHECK(verdict(head + fn + call + target + tail) != Verdict::RaceFree);
  }
  // The same functions storing the thread's own element: race-free (they are inlined).
  CHECK(verdict(head +
                "__device__ void own(int* __attribute__((noescape)) p, int i) { p[i + 1] = 2; }\n" +
                call + "&own" + tail) == Verdict::RaceFree);
}

TEST_CASE("__builtin_choose_expr runs its chosen branch, sizeof and noexcept run nothing",
          "[frontend]") {
  const std::string t = "blockIdx.x * blockDim.x + threadIdx.x";
  CHECK(verdict("__global__ void k(int* a, int* b) {\n  __builtin_choose_expr(1, a, b)[" + t +
                "] = 1;\n  b[" + t + "] = __builtin_choose_expr(0, a[0], b[" + t + "]);\n}\n") ==
        Verdict::RaceFree);
  CHECK(verdict("__global__ void k(int* a, int* b) {\n  __builtin_choose_expr(0, a, b)[" + t +
                "] = 1;\n  b[0] = __builtin_choose_expr(0, a[" + t + "], b[1]);\n}\n") ==
        Verdict::Race);
  // A call in an operand that is not evaluated runs nothing (the census does not count
  // the callee's accesses either).
  const std::string cnt = "__device__ int cnt(int* p) { return p[0]++; }\n";
  CHECK(verdict(cnt + "__global__ void k(int* a) {\n  a[" + t +
                "] = sizeof(cnt(a)) + noexcept(cnt(a));\n}\n") == Verdict::RaceFree);
  CHECK(verdict(cnt + "__global__ void k(int* a) {\n  a[" + t + "] = cnt(a);\n}\n") ==
        Verdict::Race);
}

TEST_CASE("the right operand of && and || runs exactly where the left one decides so",
          "[frontend]") {
  const std::string g = "  int g = blockIdx.x * blockDim.x + threadIdx.x;\n";
  CHECK(verdict("__global__ void k(int* a) {\n" + g + "  bool x = g == 0 && (a[0] = 1);\n}\n") ==
        Verdict::RaceFree);
  CHECK(verdict("__global__ void k(int* a) {\n" + g + "  bool x = g != 0 || (a[0] = 1);\n}\n") ==
        Verdict::RaceFree);
  CHECK(verdict("__global__ void k(int* a) {\n" + g + "  bool x = 0 && (a[0] = 1);\n}\n") ==
        Verdict::RaceFree);
  CHECK(verdict("__global__ void k(int* a) {\n" + g + "  bool x = g != 0 && (a[0] = 1);\n}\n") ==
        Verdict::Race);
  CHECK(verdict("__global__ void k(int* a) {\n" + g + "  bool x = g < 2 || (a[0] = 1);\n}\n") ==
        Verdict::Race);
}

TEST_CASE("a call through a function pointer reaches functions converted from another type",
          "[frontend]") {
  // `bad` is called through a pointer of `safe`'s type: its store of element 0 races.
  const std::string fns = "typedef void (*FP)(int*, long);\n"
                          "__device__ void safe(int* a, long i) { a[i] = 1; }\n"
                          "__device__ void bad(float* a, long) { a[0] = 2.0f; }\n"
                          "__device__ FP keep = &safe;\n";
  const std::string g = "  int g = blockIdx.x * blockDim.x + threadIdx.x;\n";
  CHECK(verdict(fns + "__global__ void k(int* a) {\n" + g + "  ((FP)bad)(a, g);\n}\n") !=
        Verdict::RaceFree);
  CHECK(verdict(fns + "__global__ void k(int* a) {\n" + g +
                "  FP f = reinterpret_cast<FP>(&bad);\n  f(a, g);\n}\n") != Verdict::RaceFree);
  CHECK(verdict(fns + "__global__ void k(int* a) {\n" + g + "  FP f = keep;\n  f(a, g);\n}\n") ==
        Verdict::RaceFree);
}

TEST_CASE("arguments that C++ may evaluate in either order are not given one", "[frontend]") {
  // Left to right every thread writes its own element; right to left element 0.
  const std::string use = "__device__ int use(int a, int) { return a; }\n";
  const std::string g = "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n";
  CHECK(verdict(use + "__global__ void k(int* p) {\n" + g + "  use(p[i] = 1, i = 0);\n}\n") !=
        Verdict::RaceFree);
  CHECK(verdict(use + "__global__ void k(int* p) {\n" + g + "  use(i = 0, p[i] = 1);\n}\n") !=
        Verdict::RaceFree);
  // Reads only, or a list-initialisation (left to right): decided.
  CHECK(verdict(use + "__global__ void k(int* p) {\n" + g + "  p[i] = use(i, i + 1);\n}\n") ==
        Verdict::RaceFree);
  CHECK(verdict("struct P { int a, b; };\n__global__ void k(int* p) {\n" + g +
                "  P q{i = 0, p[i] = 1};\n}\n") == Verdict::Race);
  // A store to memory in one argument, a load of it in another (through a pointer, of a
  // local array's element, in a called function, an atomic): left to right the value is
  // 1000 and every thread writes element 0; right to left its own element.
  const std::string pick = "__device__ int pick(int a, int b) { return b; }\n"
                           "__device__ int put(int* q, int g) { q[g] = 1000; return 0; }\n";
  const std::string racy = "  if (v == 1000) p[0] = threadIdx.x; else p[i + 1] = 1;\n}\n";
  for (const char* call : {"pick(q[i] = 1000, q[i])", "pick(put(q, i), q[i])",
                           "pick(atomicExch(&q[i], 1000), q[i])", "pick(l[0] = 1000, l[0])"})
    CHECK(verdict(pick + "__global__ void k(int* p, int* q) {\n" + g + "  int l[2] = {0, 0};\n" +
                  "  int v = " + call + ";\n" + racy) == Verdict::Unsupported);
  // A static member named through a local object is memory, not the local.
  CHECK(verdict("struct S { static __device__ int st; };\n__device__ int S::st;\n" + pick +
                "__global__ void k(int* p, int* q) {\n" + g + "  S s;\n" +
                "  int v = pick(s.st = 1000, S::st);\n" + racy) == Verdict::Unsupported);
  // An argument's own place is not changed by evaluating it (`&q.p` beside `&q.r`); a
  // call inside an argument that takes the place may change it.
  const std::string two = "struct Q { int* p; int* r; };\n"
                          "__device__ int two(int** a, int** b) { return 0; }\n";
  CHECK(verdict(two + "__global__ void k(int* p, Q q) {\n" + g +
                "  p[i] = two(&q.p, &q.r);\n}\n") == Verdict::RaceFree);
  CHECK(verdict(pick + "__device__ int set(int* x) { *x = 0; return 0; }\n" +
                "__global__ void k(int* p, int* q) {\n" + g +
                "  int j = i;\n  p[pick(set(&j), j)] = 1;\n}\n") == Verdict::Unsupported);
  // Loads of memory in both: decided.
  CHECK(verdict(pick + "__global__ void k(int* p, int* q) {\n" + g +
                "  p[i] = pick(q[i], q[i]);\n}\n") == Verdict::RaceFree);
  // Extern shared arrays of function pointers share one address: a conversion.
  CHECK(verdict("__device__ void racy(int* p) { p[0] = threadIdx.x; }\n"
                "__device__ void safe(float* p) { p[blockIdx.x * blockDim.x + threadIdx.x] = 1; }\n"
                "__global__ void k(float* a) {\n  extern __shared__ void (*s1[])(int*);\n"
                "  extern __shared__ void (*s2[])(float*);\n  if (threadIdx.x == 0) s1[0] = racy;\n"
                "  __syncthreads();\n  s2[0](a);\n}\n") != Verdict::RaceFree);
}

TEST_CASE("a function bound to a reference or forwarded is called like a function pointer",
          "[frontend]") {
  const std::string g = "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n";
  for (const char* body : {"a[i] = 1;", "a[0] = i;"}) {
    const std::string f = std::string("__device__ void g(int* a, int i) { ") + body + " }\n";
    const Verdict want = body[2] == 'i' ? Verdict::RaceFree : Verdict::Race;
    INFO(body);
    Verdict ref = verdict(f + "__global__ void k(int* a) {\n" + g +
                          "  void (&f)(int*, int) = g;\n  f(a, t);\n}\n");
    Verdict fwd = verdict(f +
                          "template <typename F> __device__ void call(F&& f, int* a, int i) { "
                          "static_cast<F&&>(f)(a, i); }\n__global__ void k(int* a) {\n" +
                          g + "  call(g, a, t);\n}\n");
    if (want == Verdict::RaceFree) {
      CHECK(ref == Verdict::RaceFree);
      CHECK(fwd == Verdict::RaceFree);
    } else {
      CHECK(ref != Verdict::RaceFree);
      CHECK(fwd != Verdict::RaceFree);
    }
  }
}
