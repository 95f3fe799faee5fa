// funmem-cuda as a command: lower, build (emulation), run and compare; run-time errors
// of the generated code; --checks=off; --compare-opt; exit codes.
#include "tests/test_util.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>

#include <unistd.h>

namespace {

using Run = funmem::test::CommandResult;
namespace fs = std::filesystem;

std::string out_dir() {
  fs::path d = fs::temp_directory_path() / ("funmem-cuda-tool-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d.string();
}

Run cuda(const std::string& args) {
  return funmem::test::run_command(std::string(FUNMEM_CUDA_BIN) + " --no-nvcc " + args);
}

std::string corpus(const std::string& f) {
  return std::string(FUNMEM_SOURCE_DIR) + "/corpus/" + f;
}

} // namespace

TEST_CASE("funmem-cuda lowers, builds, runs and agrees with the interpreter", "[tools][cuda]") {
  std::string dir = out_dir();
  Run nw = cuda(corpus("nw/nw-full.funmem") + " -o " + dir + "/nw.cu --run --time");
  INFO(nw.out);
  CHECK(nw.code == 0);
  CHECK(nw.out.find("lowered (sc, merge, hoist, expand, to-imp)") != std::string::npos);
  CHECK(nw.out.find("(emulation): ok: results equal") != std::string::npos);
  CHECK(nw.out.find("time: kernel fm_kernel_0") != std::string::npos);
  CHECK(fs::exists(dir + "/nw.cu"));
  CHECK(fs::exists(dir + "/funmem_cuda_rt.h"));

  // The interpreter stops with a bounds error; so does the generated program.
  Run oob = cuda(corpus("errors/runtime-bounds.fun") + " -o " + dir + "/oob.cu --run");
  INFO(oob.out);
  CHECK(oob.code == 0);
  CHECK(oob.out.find("ok: both fail with 'bounds'") != std::string::npos);
  Run direct = funmem::test::run_command(dir + "/oob.cu.emu /dev/null");
  CHECK(direct.code == 1);
  CHECK(direct.out.find("no input for 'n'") != std::string::npos);

  // Static errors: the diagnostic and exit 2, nothing written.
  Run bad = cuda(corpus("errors/type-undefined-name.fun") + " -o " + dir + "/bad.cu");
  CHECK(bad.code == 2);
  CHECK(bad.out.find("type-undefined-name.fun:") != std::string::npos);
  CHECK(bad.out.find(": error: ") != std::string::npos);
  CHECK_FALSE(fs::exists(dir + "/bad.cu"));

  Run off = cuda(corpus("passes/merge-element-types.fun") + " -o " + dir +
                 "/off.cu --checks off --block-size 32 --run");
  INFO(off.out);
  CHECK(off.code == 0);
  fs::remove_all(dir);
}

TEST_CASE("funmem-cuda --compare-opt runs both pipelines", "[tools][cuda]") {
  std::string dir = out_dir();
  Run c = cuda(corpus("sc/chain-nw-update.funmem") + " -o " + dir + "/c.cu --compare-opt");
  INFO(c.out);
  CHECK(c.code == 0);
  CHECK(c.out.find("time sc") != std::string::npos);
  CHECK(c.out.find("both agree with the interpreter") != std::string::npos);
  CHECK(fs::exists(dir + "/c.nosc.cu"));
  fs::remove_all(dir);
}

TEST_CASE("funmem-cuda --resources prints ptxas's counters per kernel", "[tools][cuda]") {
  if (!fs::exists("/usr/local/cuda/bin/nvcc")) {
    WARN("SKIPPED: nvcc not found under /usr/local/cuda");
    return;
  }
  std::string dir = out_dir();
  Run c = cuda(corpus("nw/nw-full.funmem") + " -o " + dir + "/r.cu --no-validate --resources " +
               "--maxrregcount 24");
  INFO(c.out);
  CHECK(c.code == 0);
  CHECK(c.out.find("resources (ptxas, sm_80, -maxrregcount=24)") != std::string::npos);
  CHECK(c.out.find("fm_kernel_0 ") != std::string::npos);
  CHECK(c.out.find("       24 ") != std::string::npos);
  // Bad cap: a usage error.
  Run bad = cuda(corpus("nw/nw-full.funmem") + " -o " + dir + "/r.cu --resources --maxrregcount 0");
  CHECK(bad.code != 0);
  fs::remove_all(dir);
}

TEST_CASE("funmem-cuda --comprehensive prints the case discussion and runs every leaf",
          "[tools][cuda][comprehensive]") {
  std::string dir = out_dir();
  Run r = cuda(corpus("cpk/jacobi-1d.fun") + " -o " + dir + "/j.cu --comprehensive --run");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("translation validation: passed") != std::string::npos);
  CHECK(r.out.find("fm_kernel_0_gc: validated: race-free") != std::string::npos);
  CHECK(r.out.find("coverage: proved") != std::string::npos);
  CHECK(r.out.find("launches fm_kernel_0_g with s = 1") != std::string::npos);
  CHECK(r.out.find("(fm_kernel_0 leaf 1: --param B=256 --param s=4") != std::string::npos);
  CHECK(r.out.find("MISMATCH") == std::string::npos);

  Run j = cuda(corpus("cpk/jacobi-1d.fun") + " -o " + dir + "/j.cu --comprehensive --json " +
               "--no-validate");
  CHECK(j.code == 0);
  REQUIRE(j.out.find('{') != std::string::npos);
  auto json = nlohmann::json::parse(j.out.substr(j.out.find('{')));
  REQUIRE(json["kernels"].size() == 1);
  CHECK(json["kernels"][0]["coverage"] == "proved");
  CHECK(json["kernels"][0]["leaves"][0]["function"] == "fm_kernel_0_gc");
  CHECK(json["kernels"][0]["tiles"][0]["span"] == 2);
  CHECK(json["domain"].size() == 10);
}
