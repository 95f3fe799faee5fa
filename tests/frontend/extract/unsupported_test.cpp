// What the extractor cannot follow: reported with its position, or any value (an
// over-approximation); clang's errors.
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

TEST_CASE("what the extractor cannot follow is reported with its position", "[frontend]") {
  auto problems = [](const std::string& code) {
    std::string all;
    for (const Problem& p : one(code).unsupported)
      all += std::to_string(p.pos.line) + ":" + std::to_string(p.pos.col) + " " + p.what + "\n";
    return all;
  };
  CHECK(problems("__global__ void k(int* a, int n) {\n"
                 "  int i = 0;\n  while (i < n) { a[i] = 0; __syncthreads(); i++; }\n}\n")
            .find("3:3 __syncthreads() in a loop whose iterations it cannot count") !=
        std::string::npos);
  CHECK(problems("__global__ void k(float* a) {\n"
                 "  if (threadIdx.x < 4) __syncthreads();\n}\n")
            .find("divergence") != std::string::npos);
  CHECK(problems("__global__ void k(int* a) {\n  int* q = a;\n"
                 "  for (int j = 0; j < 4; j++) { q[0] = j; q = q + 1; }\n}\n")
            .find("3:33 the pointer 'q' is reassigned in a loop") != std::string::npos);
  CHECK(problems("__global__ void k(int** a) {\n  a[0][threadIdx.x] = 1;\n}\n")
            .find("2:3 a pointer loaded from memory ('a[0]')") != std::string::npos);
  CHECK(problems("__device__ void f(int*);\n__global__ void k(int* a) {\n  f(a);\n}\n")
            .find("3:3 a call of 'f', whose body is not available") != std::string::npos);
  // A reference parameter, or an integer made from a pointer, is an address too.
  CHECK(problems("__device__ void f(int&);\n__global__ void k(int* a) {\n  f(a[0]);\n}\n")
            .find("3:3 a call of 'f', whose body is not available") != std::string::npos);
  CHECK(problems("__device__ void f(const int&);\n__global__ void k(int* a) {\n"
                 "  f(a[0]);\n}\n")
            .find("3:3 a call of 'f', whose body is not available") != std::string::npos);
  CHECK(problems("__device__ void f(unsigned long long);\n__global__ void k(int* a) {\n"
                 "  f((unsigned long long)a);\n}\n")
            .find("3:3 a call of 'f', whose body is not available") != std::string::npos);
  CHECK(problems("__global__ void k(int* a, int* b) {\n"
                 "  int* p = threadIdx.x ? a : b;\n  p[0] = 1;\n}\n")
            .find("3:3 the pointer 'p': a pointer chosen by '?:'") != std::string::npos);
  CHECK(problems("__global__ void k(int* a) {\n  asm(\"exit;\");\n}\n")
            .find("2:3 the statement 'GCCAsmStmt'") != std::string::npos);
  // Pointers in a structure parameter that share bytes (members of a union, an element
  // past its array's end) are no objects of their own.
  CHECK(problems(
            "struct Q { union { int* a; int* b; }; };\n"
            "__global__ void k(Q q) {\n  q.a[threadIdx.x] = 1;\n  q.b[threadIdx.x + 1] = 2;\n}\n")
            .find("3:3 a pointer loaded from memory ('q.a')") != std::string::npos);
  CHECK(problems("struct Q { int* p[2]; int* r; };\n"
                 "__global__ void k(Q q) {\n  q.p[2][threadIdx.x] = 1;\n}\n")
            .find("3:3 a pointer loaded from memory ('q.p[2]')") != std::string::npos);
  // Unsupported kernels are never called race-free.
  CHECK(verdict("__global__ void k(int* a) {\n  asm(\"exit;\");\n  a[threadIdx.x] = 1;\n}\n") ==
        Verdict::Unsupported);
}

TEST_CASE("what the extractor does not follow is any value: over-approximations", "[frontend]") {
  // A data-dependent index: an unknown of each thread; the write may meet another's.
  KernelSummary s = one("__global__ void k(int* a, const int* idx) {\n"
                        "  a[idx[threadIdx.x]] = 1;\n}\n");
  CHECK(s.unsupported.empty());
  REQUIRE(s.accesses.size() == 2);
  CHECK_FALSE(s.accesses[1].exact_guards);
  CHECK(verdict("__global__ void k(int* a, const int* idx) {\n  a[idx[threadIdx.x]] = 1;\n}\n") ==
        Verdict::Unknown);
  // ... but a thread's own row stays its own, whatever the column.
  CHECK(verdict("__global__ void k(int* a, const int* idx) {\n"
                "  a[threadIdx.x * 64 + (idx[threadIdx.x] & 63)] = 1;\n}\n",
                facts({"blockDim.x == 64", "gridDim.x == 1"})) == Verdict::RaceFree);
  // A while loop: any number of iterations, its locals any value at each start; the
  // condition is a guard.
  CHECK(verdict("__global__ void k(int* a, int n) {\n"
                "  int i = threadIdx.x;\n"
                "  while (i < n) { a[blockIdx.x * blockDim.x + threadIdx.x] = i; i += 2; }\n}\n") ==
        Verdict::RaceFree);
  CHECK(verdict("__global__ void k(int* a, int n) {\n"
                "  int i = threadIdx.x;\n"
                "  while (i < n) { a[i] = 0; i++; }\n}\n") != Verdict::RaceFree);
  // A loop whose step is not affine: its counter is any value in the body.
  CHECK(verdict("__global__ void k(int* a, int n) {\n"
                "  for (int j = 1; j < n; j *= 2) a[j] = 0;\n}\n") != Verdict::RaceFree);
  // Branches that assign a local differently: after them, any value.
  CHECK(verdict("__global__ void k(int* a) {\n"
                "  int i = threadIdx.x;\n  if (a[0] > 0) i = 0;\n  a[i + 1] = 1;\n}\n") !=
        Verdict::RaceFree);
  CHECK(verdict("__global__ void k(int* a) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (a[0] > 0) i = i + 0;\n"
                "  a[i + 1] = 1;\n}\n") == Verdict::RaceFree);
  // A uniform condition keeps the block together: a barrier under it is no divergence,
  // and it separates when both branches have one.
  CHECK(verdict("__global__ void k(int x) {\n  if (x == 0) __syncthreads();\n}\n") ==
        Verdict::RaceFree);
  const char* both = "__global__ void k(int x) {\n  __shared__ int s[64];\n"
                     "  s[threadIdx.x] = 1;\n"
                     "  if (x == 0) { __syncthreads(); s[threadIdx.x + 1] = 2; }\n"
                     "  else { __syncthreads(); s[threadIdx.x + 1] = 3; }\n}\n";
  CHECK(verdict(both) == Verdict::RaceFree);
  // Without the else's barrier, the else branch writes s[t + 1] while thread t + 1
  // writes it before the if: a race; an access after such an if is not followed.
  std::string one_side = both;
  one_side.replace(one_side.find("else { __syncthreads();"), 23, "else {");
  CHECK(verdict(one_side) == Verdict::Race);
  one_side.insert(one_side.rfind('}'), "  s[threadIdx.x] = 4;\n");
  CHECK(problems_of(one_side).find("not as often in the other") != std::string::npos);
  // A barrier loop must run the same iterations in every thread of a block.
  CHECK(problems_of("__global__ void k(int* a) {\n"
                    "  for (int i = threadIdx.x; i < 8; i++) { a[i] = 0; __syncthreads(); }\n}\n")
            .find("barrier divergence") != std::string::npos);
  // A function without a body, given values only, reaches none of the kernel's memory.
  CHECK(verdict("__device__ int f(int);\n__global__ void k(int* a) {\n"
                "  a[blockIdx.x * blockDim.x + threadIdx.x] = f(1);\n}\n") == Verdict::RaceFree);
  CHECK(verdict("__device__ void f(int*);\n__global__ void k(int* a) {\n  f(a);\n}\n") ==
        Verdict::Unsupported);
  // The assumption is the verdict's: named, for the program's own functions only (not
  // CUDA's library, not Clang's builtins).
  FileCheck own = check_file("__device__ int f(int);\n__global__ void k(int* a) {\n"
                             "  a[blockIdx.x * blockDim.x + threadIdx.x] = f(1) + __popc(3);\n}\n",
                             "bodyless.cu");
  REQUIRE(own.verdicts.size() == 1);
  CHECK(own.verdicts[0].reason.find("assumes f (declared without a body) touches none of the "
                                    "kernel's memory") != std::string::npos);
  CHECK(own.verdicts[0].reason.find("__popc") == std::string::npos);
  FileCheck lib = check_file("__global__ void k(int* a) {\n"
                             "  a[blockIdx.x * blockDim.x + threadIdx.x] = __popc(3);\n}\n",
                             "library.cu");
  REQUIRE(lib.verdicts.size() == 1);
  CHECK(lib.verdicts[0].reason.find("without a body") == std::string::npos);
  // A captureless lambda converted to a function pointer is a target of calls through
  // pointers of its type: with it, the second store may be the lambda's racy one.
  CHECK(verdict("typedef void (*fn)(int*, int);\n"
                "__device__ void own(int* p, int i) { p[i] = i; }\n"
                "__device__ fn t[2] = {own, [](int* p, int i) { p[i / 2] = i; }};\n"
                "__global__ void k(int* a, fn f) {\n  f(a, blockIdx.x * blockDim.x + "
                "threadIdx.x);\n}\n") != Verdict::RaceFree);
  // Operands that are not evaluated store nothing.
  CHECK(verdict("__global__ void k(int* p) {\n"
                "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (__builtin_constant_p(p[0] = t)) p[2 * t] = 1;\n"
                "  __builtin_assume(p[1] == 0);\n  p[2 * t + 1] = __builtin_classify_type(p[0] = "
                "1);\n}\n") == Verdict::RaceFree);
  // A pointer in a structure parameter the kernel never changes: an object of its own.
  CHECK(verdict("struct s { int* p; };\n__global__ void k(s q) {\n"
                "  q.p[blockIdx.x * blockDim.x + threadIdx.x] = 1;\n}\n") == Verdict::RaceFree);
  CHECK(verdict("struct s { int* p; };\n__global__ void k(s q, int* b) {\n"
                "  q.p = b;\n  q.p[threadIdx.x / 2] = 1;\n}\n") == Verdict::Unsupported);
}

TEST_CASE("clang's errors come out as file:line:col: error", "[frontend]") {
  ExtractResult r = extract("__global__ void k(int* a) { a[0] = ; }\n", "bad.cu");
  REQUIRE_FALSE(r.errors.empty());
  CHECK(r.errors[0].find("bad.cu:1:") == 0);
  CHECK(r.errors[0].find(": error: ") != std::string::npos);
}
