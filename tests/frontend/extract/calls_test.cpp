// Device functions the extractor follows through their returned pointers.
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
