// Launch facts: the --assume syntax and GPUVerify's header lines.
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

TEST_CASE("launch facts: --assume syntax and GPUVerify's header lines", "[frontend]") {
  Diagnostic d;
  auto f = parse_launch_fact("blockDim.x == 256", &d);
  REQUIRE(f);
  CHECK(f->to_string() == "blockDim_x == 256");
  CHECK_FALSE(parse_launch_fact("blockDim.x ==", &d));
  GpuVerifyHeader h = read_gpuverify_header("//pass\n//--blockDim=[16,8] --gridDim=64\n"
                                            "__global__ void k() {}\n");
  REQUIRE(h.expect);
  CHECK(*h.expect == "race-free");
  CHECK(h.fact_texts == std::vector<std::string>{"blockDim.x == 16", "blockDim.y == 8",
                                                 "blockDim.z == 1", "gridDim.x == 64",
                                                 "gridDim.y == 1", "gridDim.z == 1"});
  CHECK(*read_gpuverify_header("//xfail:NOT_ALL_VERIFIED\n").expect == "race");
}
