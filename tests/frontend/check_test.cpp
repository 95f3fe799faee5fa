// The front-end pipeline (check.h) on whole files: GPUVerify's suite as recorded, the
// corpus/cuda expectations (and the detector's runs of the same kernels), and
// funmem-extract's output, JSON and exit codes.
#include "frontend/dynamic/confirm.h"
#include "frontend/dynamic/race_run.h"
#include "tests/frontend/frontend_test_util.h"
#include "tests/test_util.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <sstream>

using namespace funmem;
using namespace funmem::frontend;
using namespace funmem::frontend_test;
namespace fs = std::filesystem;

namespace {

/// The corpus/cuda files in name order (every N-th under FUNMEM_EXTRACT_CORPUS_EVERY).
std::vector<fs::path> cuda_corpus_files() {
  std::vector<fs::path> all, out;
  for (const auto& e : fs::directory_iterator(fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "cuda"))
    if (e.path().extension() == ".cu") all.push_back(e.path());
  std::sort(all.begin(), all.end());
  for (size_t k = test::extract_corpus_every() - 1; k < all.size();
       k += test::extract_corpus_every())
    out.push_back(all[k]);
  return out;
}

} // namespace

TEST_CASE("GPUVerify's CUDA test suite: no racy kernel is called race-free",
          "[frontend][external]") {
  // ../shared/external/gpuverify-cuda-testsuite (third-party, not copied here);
  // EXPECTED.tsv sorts its kernels. tests/frontend/gpuverify-verdicts.tsv records what
  // funmem-extract says of each; a change shows up here. A record `race|unknown` is a
  // kernel whose race only some thread schedules show to the dynamic detector (it runs
  // each block's threads as OS threads): either answer is sound, no other is expected.
  fs::path suite =
      std::getenv("FUNMEM_GPUVERIFY_SUITE")
          ? fs::path(std::getenv("FUNMEM_GPUVERIFY_SUITE"))
          : fs::path(FUNMEM_SOURCE_DIR) / ".." / "shared" / "external" / "gpuverify-cuda-testsuite";
  if (!fs::exists(suite / "EXPECTED.tsv")) {
    WARN("SKIPPED: GPUVerify's suite is not at " << suite.string());
    return;
  }
  std::map<std::string, std::string> recorded;
  {
    std::istringstream in(
        test::slurp(fs::path(FUNMEM_SOURCE_DIR) / "tests" / "frontend" / "gpuverify-verdicts.tsv"));
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      auto tab = line.find('\t'), tab2 = line.rfind('\t');
      recorded[line.substr(0, tab)] = line.substr(tab2 + 1);
    }
  }
  std::istringstream in(test::slurp(suite / "EXPECTED.tsv"));
  int racy = 0, checked = 0, line_no = 0;
  // The sanitizer build takes every N-th kernel (test::extract_corpus_every).
  const int every = static_cast<int>(test::extract_corpus_every());
  // FUNMEM_WRITE_GPUVERIFY_VERDICTS=1 rewrites the record (after a reviewed change).
  std::string record = "# GPUVerify's CUDA test suite: kernel\tGPUVerify's expectation\t"
                       "funmem-extract's verdict (error: clang could not parse it alone)\n";
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line_no++ % every != every - 1) continue;
    std::string dir = line.substr(0, line.find('\t')), expect = line.substr(line.find('\t') + 1);
    fs::path file = suite / dir / "kernel.cu";
    std::string code = test::slurp(file);
    FileCheck fc = check_file(code, file.string());
    std::string got = "error";
    if (fc.parsed) {
      std::set<std::string> vs;
      for (const KernelVerdict& kv : fc.verdicts) {
        vs.insert(verdict_name(kv.verdict));
        if (kv.wall_guard > 0) WARN(dir << ": " << kv.reason); // see the corpus test
      }
      got = vs.empty() ? "none" : *vs.begin();
      if (vs.count("race-free") && vs.size() > 1) got = "mixed";
      if (vs.size() == 1) got = *vs.begin();
    }
    INFO(dir << ": GPUVerify " << expect << ", funmem " << got << ", recorded " << recorded[dir]);
    const std::string want = recorded[dir];
    const bool schedule_dependent = want == "race|unknown";
    record += dir + "\t" + expect + "\t" + (schedule_dependent ? want : got) + "\n";
    ++checked;
    if (expect == "race") {
      ++racy;
      CHECK(got != "race-free");
      CHECK(got != "mixed");
    }
    if (schedule_dependent)
      CHECK((got == "race" || got == "unknown"));
    else
      CHECK(want == got);
  }
  CHECK(checked == 183 / every);
  CHECK(racy >= (every == 1 ? 27 : 5));
  CHECK(racy <= 27);
  if (every == 1 && std::getenv("FUNMEM_WRITE_GPUVERIFY_VERDICTS"))
    std::ofstream(fs::path(FUNMEM_SOURCE_DIR) / "tests" / "frontend" / "gpuverify-verdicts.tsv")
        << record;
}

TEST_CASE("every corpus/cuda kernel gets its expected verdict, and the detector agrees",
          "[frontend][corpus][race-run]") {
  // `// expect: V` is the truth; `// currently: unknown (...)` records a kernel the
  // prover does not decide yet. A race-free kernel is never called racy, nor the
  // reverse. The detector then runs each kernel once, a racy one at its static witness's
  // launch (at the default launch where the static checker finds none: an index leaving
  // its object), a race-free one at the default launch (the header's sizes where it fixes
  // them), its blocks in both orders: it must observe the race, or none.
  struct Case {
    fs::path file;
    std::string expect, currently;
    FileCheck fc;
    bool run = false;
    Launch launch;
    JobResult observed;
  };
  std::vector<Case> cases;
  // The sanitizer build runs the detector on a few of each verdict
  // (test::cuda_corpus_limit).
  const size_t limit = test::cuda_corpus_limit().value_or(SIZE_MAX);
  std::map<std::string, size_t> taken;
  for (const fs::path& path : cuda_corpus_files()) {
    Case c;
    c.file = path;
    const std::string code = test::slurp(path);
    auto line_value = [&](const std::string& key) -> std::string {
      size_t at = code.find("// " + key + ": ");
      if (at == std::string::npos) return "";
      at += key.size() + 5;
      size_t end = code.find_first_of(" \n", at);
      return code.substr(at, end - at);
    };
    c.expect = line_value("expect");
    c.currently = line_value("currently");
    c.run = taken[c.expect]++ < limit;
    cases.push_back(std::move(c));
  }
  // Two files at a time (the machine has two cores; each detector run compiles); the
  // checks below run on this thread.
  auto check = [](Case& c) {
    const std::string code = test::slurp(c.file);
    const std::string name = c.file.filename().string();
    c.fc = check_file(code, name);
    if (!c.run || !c.fc.errors.empty() || c.fc.kernels.size() != 1) return;
    c.launch = default_launch(c.fc.kernels[0], c.fc.header);
    if (c.expect == "race" && c.fc.verdicts.size() == 1 && c.fc.verdicts[0].witness)
      c.launch = witness_launch(*c.fc.verdicts[0].witness);
    RaceDetector d(code, name, scratch(c.file.stem().string()).string());
    if (!d.errors().empty()) {
      c.observed.errors = d.errors();
      return;
    }
    RaceJob j;
    j.launch = c.launch;
    auto rs = merge_block_orders(d.run(in_both_block_orders(j)));
    fs::remove_all(scratch(c.file.stem().string()));
    if (!rs.empty()) c.observed = rs[0];
  };
  for (size_t i = 0; i < cases.size(); i += 2) {
    auto second = std::async(std::launch::async, [&, i] {
      if (i + 1 < cases.size()) check(cases[i + 1]);
    });
    check(cases[i]);
    second.get();
  }
  int racy = 0, free = 0;
  for (const Case& c : cases) {
    const std::string name = c.file.filename().string();
    INFO(name);
    REQUIRE_FALSE(c.expect.empty());
    REQUIRE(c.fc.errors.empty());
    Verdict worst = Verdict::RaceFree;
    for (const KernelVerdict& kv : c.fc.verdicts) {
      INFO(kv.reason);
      // A check stopped by the wall-clock guard (only questions that divide by a
      // non-constant reach it: docs/prover.md, "Budgets") is said, not failed: the
      // verdict stays sound, but another machine may answer it differently.
      if (kv.wall_guard > 0) WARN(name << ": " << kv.reason);
      if (kv.verdict != Verdict::RaceFree) worst = kv.verdict;
    }
    std::string got = verdict_name(worst);
    if (got != c.expect) {
      CHECK(got == c.currently);
      CHECK(c.currently == "unknown");
    }
    if (!c.run) continue;
    REQUIRE(c.fc.kernels.size() == 1);
    const JobResult& r = c.observed;
    const Launch& l = c.launch;
    std::string args;
    for (const auto& [n, v] : l.args)
      args += " " + n + "=" + std::to_string(v);
    INFO("the detector: " << (r.errors.empty() ? "" : r.errors[0]) << " (block " << l.block[0]
                          << "x" << l.block[1] << "x" << l.block[2] << ", grid " << l.grid[0] << "x"
                          << l.grid[1] << "x" << l.grid[2] << ", " << l.elements << " elements"
                          << args << ")");
    CHECK(r.finished);
    if (c.expect == "race") {
      ++racy;
      CHECK_FALSE(r.races.empty());
    } else if (c.expect == "race-free") {
      ++free;
      CHECK(r.races.empty());
    }
  }
  CHECK(cases.size() >= 48 / test::extract_corpus_every());
  CHECK(racy >= static_cast<int>(std::min<size_t>(19, limit)));
  CHECK(free >= static_cast<int>(std::min<size_t>(10, limit)));
}

TEST_CASE("racy corpus/cuda kernels are shown racy without the prover's models",
          "[frontend][corpus]") {
  // A loaded machine's Z3 may give no overlap model in time: the witness search's own
  // launches must then find the race (a large launch tried first used up its budget).
  int racy = 0;
  for (const fs::path& path : cuda_corpus_files()) {
    std::string code = test::slurp(path);
    if (code.find("// expect: race\n") == std::string::npos) continue;
    ++racy;
    INFO(path.filename().string());
    RaceOptions o;
    o.prover.membership = false;
    o.prover.witness_search = false;
    o.prover.sosi = false;
    FileCheck fc = check_file(code, path.filename().string(), o);
    REQUIRE(fc.errors.empty());
    bool race = false;
    for (const KernelVerdict& kv : fc.verdicts)
      race = race || kv.verdict == Verdict::Race;
    CHECK(race);
  }
  CHECK(racy >= 6 / static_cast<int>(test::extract_corpus_every()));
}

TEST_CASE("funmem-extract: verdicts, JSON and exit codes", "[frontend][tools]") {
  const std::string bin = FUNMEM_EXTRACT_BIN;
  const std::string dir = std::string(FUNMEM_SOURCE_DIR) + "/corpus/cuda/";
  auto free = test::run_command(bin + " " + dir + "reduce.cu");
  CHECK(free.code == 0);
  CHECK(free.out.find("kernel reduce: race-free") != std::string::npos);
  auto race = test::run_command(bin + " " + dir + "reduce-nobarrier.cu");
  CHECK(race.code == 1);
  CHECK(race.out.find("race on s[") != std::string::npos);
  auto json = test::run_command(bin + " --json " + dir + "stencil.cu");
  CHECK(json.code == 0);
  CHECK(json.out.find("\"verdict\": \"race-free\"") != std::string::npos);
  CHECK(json.out.find("\"space\": \"shared\"") != std::string::npos);
  auto unsup = test::run_command(bin + " " + dir + "method-store.cu");
  CHECK(unsup.code == 1);
  CHECK(unsup.out.find("method-store.cu:7:35: unsupported: a pointer loaded from memory ('p')") !=
        std::string::npos);
  auto bad = test::run_command(bin + " --assume 'blockDim.x ==' " + dir + "reduce.cu");
  CHECK(bad.code == 2);
  CHECK(bad.out.find("--assume 'blockDim.x =='") != std::string::npos);
  auto missing = test::run_command(bin + " /nonexistent.cu");
  CHECK(missing.code == 2);
  // With the launch fixed to one thread, every thread writing a[0] is no race.
  fs::path tmp = fs::temp_directory_path() / "funmem-extract-one.cu";
  { std::ofstream(tmp) << "__global__ void k(float* a) { a[0] = 1; }\n"; }
  CHECK(test::run_command(bin + " " + tmp.string()).code == 1);
  CHECK(test::run_command(bin + " " + tmp.string() +
                          " --assume 'blockDim.x == 1' --assume 'gridDim.x == 1'")
            .code == 0);
  fs::remove(tmp);
  // What follows `--` goes to clang: -DRACY selects the racy branch.
  fs::path def = fs::temp_directory_path() / "funmem-extract-define.cu";
  {
    std::ofstream(def) << "__global__ void k(float* a) {\n#ifdef RACY\n  a[0] = 1;\n#else\n"
                          "  a[threadIdx.x] = 1;\n#endif\n}\n";
  }
  auto plain = test::run_command(bin + " --no-run " + def.string() + " --assume 'gridDim.x == 1'");
  CHECK(plain.code == 0);
  auto racy =
      test::run_command(bin + " --no-run " + def.string() + " --assume 'gridDim.x == 1' -- -DRACY");
  CHECK(racy.code == 1);
  CHECK(racy.out.find("a[0] at 3:") != std::string::npos);
  fs::remove(def);
  // A directory is refused with a clear error.
  auto directory = test::run_command(bin + " " + fs::temp_directory_path().string());
  CHECK(directory.code == 2);
  CHECK(directory.out.find("error: is a directory, not a file") != std::string::npos);
}
