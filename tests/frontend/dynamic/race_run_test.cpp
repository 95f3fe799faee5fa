// The dynamic race detector: instrumentation, the CPU emulation with real threads and
// barriers, every corpus/cuda kernel's race observed (and none in race-free ones), and
// funmem-race-run.
#include "frontend/check.h"
#include "frontend/dynamic/confirm.h"
#include "frontend/dynamic/race_run.h"
#include "frontend/extract.h"
#include "frontend/race.h"
#include "tests/frontend/frontend_test_util.h"
#include "tests/test_util.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>

using namespace funmem;
using namespace funmem::frontend;
using funmem::frontend_test::scratch;
namespace fs = std::filesystem;

namespace {

/// Runs one job of `code` and returns its result for `kernel`.
JobResult run_once(const std::string& code, const std::string& name, const Launch& l,
                   int seconds = 10) {
  RaceDetector d(code, name + ".cu", scratch(name).string());
  for (const std::string& e : d.errors())
    UNSCOPED_INFO(e);
  REQUIRE(d.errors().empty());
  RaceJob j;
  j.launch = l;
  auto rs = d.run({j}, seconds);
  fs::remove_all(scratch(name));
  REQUIRE(rs.size() == 1);
  REQUIRE(rs[0].size() == 1);
  return rs[0][0];
}

} // namespace

TEST_CASE("instrumentation wraps every load and store of memory", "[frontend][race-run]") {
  Instrumented ins = instrument("struct P { int x, y; };\n"
                                "__device__ int g;\n"
                                "__global__ void k(int* a, P* p, int n) {\n"
                                "  int i = threadIdx.x;\n"
                                "  a[i] = a[i + 1] + n;\n"
                                "  p[i].y += g;\n"
                                "}\n",
                                "k.cu");
  REQUIRE(ins.errors.empty());
  CHECK(ins.kernels == std::vector<std::string>{"k"});
  CHECK(ins.source.find("(*::fmr::wr(&(a[i]), 5, 3)) = (*::fmr::rd(&(a[i + 1]), 5, 10)) + n;") !=
        std::string::npos);
  CHECK(ins.source.find("(*::fmr::rw(&(p[i].y), 6, 3)) += (*::fmr::rd(&(g), 6, 13));") !=
        std::string::npos);
  CHECK(ins.source.find("int i = threadIdx.x;") != std::string::npos); // built-ins, locals
  CHECK(ins.source.find("::fmr::reg(&g, sizeof(g), \"g\", false);") != std::string::npos);
  // What it cannot instrument is an error, never a silent gap.
  Instrumented mac = instrument("#define AT(p, i) p[i]\n"
                                "__global__ void k(int* a) { AT(a, 0) = 1; }\n",
                                "m.cu");
  REQUIRE_FALSE(mac.errors.empty());
  CHECK(mac.errors[0].find("m.cu:2:29: error: cannot instrument an access inside a macro") == 0);
}

TEST_CASE("the detector observes races with both threads, and none in race-free code",
          "[frontend][race-run]") {
  Launch l; // 4 threads, 2 blocks
  JobResult r = run_once("__global__ void k(int* a) { a[threadIdx.x / 2] = 1; }\n", "pairs", l);
  CHECK(r.finished);
  REQUIRE_FALSE(r.races.empty());
  CHECK(r.races[0].object == "a");
  CHECK(r.races[0].first.find("writes 4 byte(s) at 1:29") != std::string::npos);
  // A real barrier orders the two halves: no race.
  JobResult b = run_once("__global__ void k(int* a) {\n  __shared__ int s[4];\n"
                         "  s[threadIdx.x] = threadIdx.x;\n  __syncthreads();\n"
                         "  a[blockIdx.x * 4 + threadIdx.x] = s[3 - threadIdx.x];\n}\n",
                         "barrier", l);
  CHECK(b.finished);
  CHECK(b.races.empty());
  // Without it, the same accesses race.
  JobResult nb = run_once("__global__ void k(int* a) {\n  __shared__ int s[4];\n"
                          "  s[threadIdx.x] = threadIdx.x;\n"
                          "  a[blockIdx.x * 4 + threadIdx.x] = s[3 - threadIdx.x];\n}\n",
                          "nobarrier", l);
  REQUIRE_FALSE(nb.races.empty());
  CHECK(nb.races[0].object == "s");
  // Atomics do not race with atomics; fields of one element are different bytes.
  CHECK(run_once("__global__ void k(int* c) { atomicAdd(c, 1); }\n", "atomic", l).races.empty());
  CHECK(run_once("struct P { int x, y; };\n__global__ void k(P* p) {\n"
                 "  if (threadIdx.x == 0) p[blockIdx.x].x = 1; else if (threadIdx.x == 1) "
                 "p[blockIdx.x].y = 2;\n}\n",
                 "fields", l)
            .races.empty());
  // Warp shuffles exchange values: each race below needs two correct results.
  Launch warps;
  warps.block[0] = 64;
  warps.grid[0] = 1;
  JobResult sh =
      run_once("__global__ void k(int* out) {\n  int v = threadIdx.x;\n"
               "  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);\n"
               "  if (threadIdx.x == 0 && v == 496) out[0] = 1;\n"
               "  if (threadIdx.x == 32 && v == 1520) out[0] = 2;\n"
               "  int w = __shfl_xor_sync(0xffffffff, (int)threadIdx.x, 1);\n"
               "  if (threadIdx.x == 5 && w == 4) out[1] = 1;\n"
               "  if (threadIdx.x == 6 && w == 7) out[1] = 2;\n}\n",
               "shuffle", warps);
  REQUIRE(sh.races.size() == 2);
  CHECK(sh.races[0].byte == 0);
  CHECK(sh.races[1].byte == 4);
  // Out of bounds is reported (and harmless); a hang is cut off.
  Launch small;
  small.elements = 2;
  JobResult oob = run_once("__global__ void k(int* a) { a[blockIdx.x * 4 + threadIdx.x] = 1; }\n",
                           "oob", small);
  CHECK(oob.finished);
  REQUIRE_FALSE(oob.errors.empty());
  CHECK(oob.errors[0].find("out of bounds: 4 byte(s) at 1:29") == 0);
  JobResult hang = run_once("__global__ void k(int* a) { while (a[0] >= 0) {} }\n", "hang", l, 1);
  CHECK_FALSE(hang.finished);
}

TEST_CASE("the detector finds every racy corpus/cuda kernel's race, and none in race-free ones",
          "[frontend][race-run][corpus]") {
  // Racy kernels run at their static witness's launch (or, if the static checker finds
  // none, at the default launch); race-free ones at the default launch (the header's
  // sizes where it fixes them).
  struct Case {
    fs::path file;
    std::string expect;
    Launch launch;
  };
  std::vector<Case> cases;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "cuda"))
    if (e.path().extension() == ".cu") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  // The sanitizer build runs a few of each verdict (test::cuda_corpus_limit).
  const size_t limit = test::cuda_corpus_limit().value_or(files.size());
  std::map<std::string, size_t> taken;
  for (const fs::path& file : files) {
    std::string code = test::slurp(file);
    std::string expect = code.substr(code.find("// expect: ") + 11);
    expect = expect.substr(0, expect.find('\n'));
    if (taken[expect]++ >= limit) continue;
    ExtractResult r = extract(code, file.filename().string());
    REQUIRE(r.kernels.size() == 1);
    GpuVerifyHeader h = read_gpuverify_header(code);
    Launch l = default_launch(r.kernels[0], h);
    if (expect == "race") {
      FileCheck fc = check_cuda_file(code, file.filename().string(), CheckOptions{});
      REQUIRE(fc.verdicts.size() == 1);
      // A race the static checker cannot place (an index leaving its object) is run
      // at the default launch.
      if (fc.verdicts[0].witness) l = witness_launch(*fc.verdicts[0].witness);
    }
    cases.push_back({file, expect, l});
  }
  auto run = [](const Case& c) {
    std::string code = test::slurp(c.file);
    RaceDetector d(code, c.file.filename().string(), scratch(c.file.stem().string()).string());
    JobResult out;
    if (!d.errors().empty()) {
      out.errors = d.errors();
      return out;
    }
    RaceJob j;
    j.launch = c.launch;
    auto rs = d.run({j});
    fs::remove_all(scratch(c.file.stem().string()));
    return rs.empty() || rs[0].empty() ? out : rs[0][0];
  };
  // Two at a time (the machine has two cores; each run compiles).
  std::vector<JobResult> results(cases.size());
  for (size_t i = 0; i < cases.size(); i += 2) {
    auto second = std::async(std::launch::async, [&, i] {
      if (i + 1 < cases.size()) results[i + 1] = run(cases[i + 1]);
    });
    results[i] = run(cases[i]);
    second.get();
  }
  int racy = 0, free = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const JobResult& r = results[i];
    const Launch& l = cases[i].launch;
    std::string args;
    for (const auto& [n, v] : l.args)
      args += " " + n + "=" + std::to_string(v);
    INFO(cases[i].file.filename().string()
         << ": " << (r.errors.empty() ? "" : r.errors[0]) << " (block " << l.block[0] << "x"
         << l.block[1] << "x" << l.block[2] << ", grid " << l.grid[0] << "x" << l.grid[1] << "x"
         << l.grid[2] << ", " << l.elements << " elements" << args << ")");
    CHECK(r.finished);
    if (cases[i].expect == "race") {
      ++racy;
      CHECK_FALSE(r.races.empty());
    } else if (cases[i].expect == "race-free") {
      ++free;
      CHECK(r.races.empty());
    }
  }
  CHECK(racy >= static_cast<int>(std::min<size_t>(19, limit)));
  CHECK(free >= static_cast<int>(std::min<size_t>(10, limit)));
}

TEST_CASE("funmem-race-run: races, exit codes, JSON", "[frontend][race-run][tools]") {
  const std::string bin = FUNMEM_RACE_RUN_BIN;
  const std::string dir = std::string(FUNMEM_SOURCE_DIR) + "/corpus/cuda/";
  auto race = test::run_command(bin + " " + dir + "shared-scalar.cu");
  CHECK(race.code == 1);
  CHECK(race.out.find("kernel k: race (blockDim 4 gridDim 2)") != std::string::npos);
  CHECK(race.out.find("race on a, byte 0:") != std::string::npos);
  auto free = test::run_command(bin + " " + dir + "reduce.cu --blockDim 8 --gridDim 2");
  CHECK(free.code == 0);
  CHECK(free.out.find("kernel reduce: no race observed (blockDim 8 gridDim 2)") !=
        std::string::npos);
  auto json = test::run_command(bin + " --json " + dir + "struct-assign.cu");
  CHECK(json.code == 1);
  CHECK(json.out.find("\"object\": \"pairs\"") != std::string::npos);
  // One buffer's size: x of 3 elements, read by 8 threads.
  auto small = test::run_command(bin + " " + dir + "saxpy-gridstride.cu --size x=3");
  CHECK(small.code == 0);
  CHECK(small.out.find("out of bounds: 4 byte(s) at 7:16") != std::string::npos);
  CHECK(test::run_command(bin + " " + dir + "saxpy-gridstride.cu --size x").code == 2);
  CHECK(test::run_command(bin + " /nonexistent.cu").code == 2);
  CHECK(test::run_command(bin + " " + dir + "reduce.cu --blockDim 0").code == 2);
  CHECK(test::run_command(bin + " " + dir + "reduce.cu --arg n=x").code == 2);
}

TEST_CASE("funmem-race-run: a run's budget counts work; structure arguments' members",
          "[frontend][race-run][tools]") {
  const std::string bin = FUNMEM_RACE_RUN_BIN;
  const fs::path dir = scratch("race-run-work");
  fs::create_directories(dir);
  // A spin on memory no thread writes: stopped by its budget of accesses, whatever the
  // machine's load (the wall-clock guard is a minute away).
  std::ofstream(dir / "spin.cu") << "__global__ void k(volatile int* a) {\n"
                                    "  while (a[0] != 12345) {}\n"
                                    "}\n";
  auto spin = test::run_command(bin + " " + (dir / "spin.cu").string() + " --work 100000");
  CHECK(spin.code == 2);
  CHECK(spin.out.find("the run exceeded its work budget (100000 accesses") != std::string::npos);
  // Pointers inside a structure argument are buffers of their own, sized by their path.
  const std::string corpus = std::string(FUNMEM_SOURCE_DIR) + "/corpus/cuda/";
  auto nested = test::run_command(bin + " --json " + corpus +
                                  "struct-param-nested-race.cu --size q.out=3 --arg q.io.scale=3");
  CHECK(nested.code == 1);
  CHECK(nested.out.find("\"object\": \"q.io.dst[1]\"") != std::string::npos);
  CHECK(nested.out.find("out of bounds: 4 byte(s) at 18:5") != std::string::npos);
  CHECK(nested.out.find("q.out\",") == std::string::npos); // its writes are each thread's own
}
