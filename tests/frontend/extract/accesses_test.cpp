// The extractor's access summaries: guards, loops and barrier intervals, memory objects
// in bytes (scalars, structures, references, calls, atomics), the scope of a store.
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

TEST_CASE("accesses are summarised with their guards, loops and barrier intervals", "[frontend]") {
  KernelSummary k = one("__global__ void scale(float* a, const float* b, int n) {\n"
                        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                        "  if (i < n) a[i] = 2 * b[i];\n"
                        "}\n");
  CHECK(k.name == "scale");
  CHECK(k.pointer_params == std::vector<std::string>{"a", "b"});
  CHECK(k.scalar_params == std::vector<std::string>{"n"});
  REQUIRE(k.accesses.size() == 2);
  const Access& w = k.accesses[1];
  CHECK(w.array == "a");
  CHECK(w.write);
  CHECK(w.index == v("blockIdx_x") * v("blockDim_x") + v("threadIdx_x"));
  REQUIRE(w.guards.size() == 1);
  CHECK(display_names(w.guards[0].to_string()) == "blockDim.x*blockIdx.x + threadIdx.x < n");
  CHECK(w.pos.line == 3);
  CHECK(k.unsupported.empty());

  KernelSummary s = one("__global__ void k(float* a, int n) {\n"
                        "  __shared__ float t[16][17];\n"
                        "  for (int j = 0; j < n; j += 2) a[j * 3 + threadIdx.x] = 0;\n"
                        "  t[threadIdx.y][threadIdx.x] = a[0];\n"
                        "  __syncthreads();\n"
                        "  a[threadIdx.x] += t[threadIdx.x][threadIdx.y];\n"
                        "}\n");
  CHECK(s.shared_arrays == std::vector<std::string>{"t"});
  CHECK(s.barriers == 1);
  REQUIRE(s.accesses.size() == 6);
  REQUIRE(s.accesses[0].loops.size() == 1);
  CHECK(s.accesses[0].loops[0].step == Poly(2));
  CHECK(s.accesses[2].index == v("threadIdx_y") * 17 + v("threadIdx_x")); // row of 17
  CHECK(s.accesses[2].phase == 0);
  CHECK(s.accesses[5].phase == 1);
  // a[tx] += t[...]: the read of t, then a read and a write of the same element of a.
  CHECK(s.accesses[3].array == "t");
  CHECK(s.accesses[4].array == "a");
  CHECK_FALSE(s.accesses[4].write);
  CHECK(s.accesses[5].write);
  CHECK(s.accesses[4].index == s.accesses[5].index);
}

TEST_CASE("memory objects in bytes: scalars, structures, references, calls, atomics",
          "[frontend]") {
  KernelSummary sh = one("__global__ void k() {\n  __shared__ int a;\n  a = threadIdx.x;\n}\n");
  REQUIRE(sh.accesses.size() == 1);
  CHECK(sh.accesses[0].array == "a");
  CHECK(sh.accesses[0].space == Space::Shared);
  CHECK(sh.accesses[0].index == Poly(0));
  KernelSummary dv = one("__device__ int g[8];\n__global__ void k() {\n  g[threadIdx.x] = 1;\n}\n");
  REQUIRE(dv.accesses.size() == 1);
  CHECK(dv.global_vars == std::vector<std::string>{"g"});
  CHECK(dv.accesses[0].space == Space::Global);
  // Fields are different units of the element: x at 2i, y at 2i + 1 (unit 4 bytes);
  // the whole-structure write covers both through a synthetic counter.
  KernelSummary st = one("struct P { int x, y; };\n"
                         "__global__ void k(P* p, P v) {\n  int i = threadIdx.x;\n"
                         "  p[i].x = p[i].y;\n  p[i + 1] = v;\n}\n");
  REQUIRE(st.accesses.size() == 3);
  CHECK(st.accesses[0].index == 2 * v("threadIdx_x") + 1);
  CHECK_FALSE(st.accesses[0].write);
  CHECK(st.accesses[1].index == 2 * v("threadIdx_x"));
  CHECK(st.accesses[1].unit == 4);
  REQUIRE(st.accesses[2].loops.size() == 1);
  CHECK(st.accesses[2].loops[0].count == Poly(2));
  CHECK(st.accesses[2].index == 2 * v("threadIdx_x") + 2 + v(st.accesses[2].loops[0].var.c_str()));
  // A reference is a pointer; a device function is inlined with its arguments.
  KernelSummary rf = one("__device__ void set(int& r, int v) { r = v; }\n"
                         "__device__ void put(int* q, int j) { set(q[j + 1], j); }\n"
                         "__global__ void k(int* p) {\n  put(p, threadIdx.x);\n}\n");
  REQUIRE(rf.accesses.size() == 1);
  CHECK(rf.accesses[0].array == "p");
  CHECK(rf.accesses[0].write);
  CHECK(rf.accesses[0].index == v("threadIdx_x") + 1);
  // Atomics: no race with each other, a race with a plain access.
  CHECK(verdict("__global__ void k(int* c) {\n  atomicAdd(&c[0], 1);\n  atomicAdd(c, 2);\n}\n") ==
        Verdict::RaceFree);
  CHECK(verdict("__global__ void k(int* c, int* o) {\n  atomicAdd(&c[0], 1);\n"
                "  o[threadIdx.x] = c[0];\n}\n") == Verdict::Race);
  // memcpy is a range: 8 bytes of b read, of a written, from the thread's own place.
  KernelSummary mc = one("__global__ void k(int* a, const int* b) {\n"
                         "  memcpy(a + 2 * threadIdx.x, b, 8);\n}\n");
  REQUIRE(mc.accesses.size() == 2);
  CHECK(mc.accesses[1].array == "a");
  CHECK(mc.accesses[1].unit == 8); // every offset and size of a is a multiple of 8
  CHECK(mc.accesses[1].loops.empty());
  KernelSummary mc4 = one("__global__ void k(int* a, const int* b) {\n"
                          "  memcpy(a + threadIdx.x, b, 8);\n}\n");
  REQUIRE(mc4.accesses.size() == 2);
  CHECK(mc4.accesses[1].unit == 4);
  REQUIRE(mc4.accesses[1].loops.size() == 1);
  CHECK(mc4.accesses[1].loops[0].count == Poly(2));
  CHECK(verdict("__global__ void k(int* a, const int* b) {\n"
                "  memcpy(a + 2 * (blockIdx.x * blockDim.x + threadIdx.x), b, 8);\n}\n") ==
        Verdict::RaceFree);
  CHECK(verdict("__global__ void k(int* a, const int* b) {\n"
                "  memcpy(a + threadIdx.x, b, 8);\n}\n") == Verdict::Race);
  // Warp shuffles touch no memory.
  KernelSummary sf =
      one("__global__ void k(float* a) {\n"
          "  a[threadIdx.x] = __shfl_down_sync(0xffffffff, a[threadIdx.x], 1);\n}\n");
  CHECK(sf.unsupported.empty());
  CHECK(sf.accesses.size() == 2);
}

TEST_CASE("a store's scope holds the declarations in force there, not an ended block's",
          "[frontend]") {
  // Many names declared in an ended block and again after it: whatever order the
  // declarations have in memory, the store sees the later ones.
  std::string code = "__global__ void k(int* a, int n) {\n";
  for (int b = 0; b < 8; ++b)
    code += "  { int x" + std::to_string(b) + " = n + 1; a[x" + std::to_string(b) + "] = 0; }\n";
  for (int b = 0; b < 8; ++b)
    code += "  int x" + std::to_string(b) + " = threadIdx.x + " + std::to_string(b) + ";\n";
  code += "  a[x0] = 1;\n}\n";
  KernelSummary k = one(code);
  REQUIRE(k.accesses.size() == 9);
  const Access& w = k.accesses.back();
  for (int b = 0; b < 8; ++b)
    CHECK(w.scope.at("x" + std::to_string(b)) == v("threadIdx_x") + Poly(b));
}
