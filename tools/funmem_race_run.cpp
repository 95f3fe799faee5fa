// funmem-race-run: the dynamic race detector (docs/extract.md). Instruments every load
// and store of a CUDA file with Clang's Rewriter, runs each kernel on the CPU emulation
// (a real thread per CUDA thread, a real barrier per __syncthreads) for one launch,
// and reports every race it observed with both threads and the address.
#include "frontend/dynamic/race_run.h"
#include "support/files.h"
#include "tools/guarded_main.h"
#include "tools/pass_through.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <unistd.h>

using namespace funmem;
using namespace funmem::frontend;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

/// `4`, `4,2` or `[4,2,1]` into three sizes.
bool sizes(std::string text, int64_t out[3]) {
  if (!text.empty() && text.front() == '[') text = text.substr(1);
  if (!text.empty() && text.back() == ']') text.pop_back();
  out[0] = out[1] = out[2] = 1;
  size_t d = 0, at = 0;
  while (at <= text.size() && d < 3) {
    size_t comma = text.find(',', at);
    std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    try {
      size_t used = 0;
      out[d] = std::stoll(item, &used);
      if (used != item.size() || out[d] < 1 || out[d] > 1024) return false;
    } catch (...) {
      return false;
    }
    ++d;
    if (comma == std::string::npos) return true;
    at = comma + 1;
  }
  return false;
}

} // namespace

static int tool_main(int argc, char** argv);

int main(int argc, char** argv) {
  return funmem::guarded_main("funmem-race-run", [&] { return tool_main(argc, argv); });
}

static int tool_main(int argc, char** argv) {
  CLI::App app{"funmem-race-run: run CUDA kernels on a CPU emulation and report observed races"};
  std::string file, block = "4", grid = "2", keep;
  std::vector<std::string> arg_texts, clang_args;
  int64_t elements = 0;
  int seconds = kHangSeconds;
  uint64_t work = kRunWork;
  bool as_json = false;
  app.add_option("file", file, "a CUDA file (.cu)")->required();
  app.add_option("--blockDim", block, "threads per block: X or X,Y or X,Y,Z (default 4)");
  app.add_option("--gridDim", grid, "blocks: X or X,Y or X,Y,Z (default 2)");
  app.add_option("--arg", arg_texts,
                 "a scalar argument NAME=VALUE (others: the number of threads in x)");
  app.add_option("--elements", elements,
                 "elements of every pointer argument's buffer (default threads^2 + 64)");
  std::vector<std::string> size_texts;
  app.add_option("--size", size_texts, "one pointer argument's element count NAME=COUNT");
  app.add_option("--work", work,
                 "the run's budget: accesses and barrier passes (default 20000000)");
  app.add_option("--seconds", seconds,
                 "guard against a run that loops without touching memory: seconds of its CPU "
                 "time (default 60)");
  app.add_option("--keep", keep, "build in this directory and keep it (default: a temporary one)");
  app.add_flag("--json", as_json, "one JSON object");
  app.add_option("--clang-arg", clang_args, "an extra argument for clang (repeatable)");
  std::vector<std::string> after_dashes;
  const int own = split_at_dashes(argc, argv, after_dashes);
  CLI11_PARSE(app, own, argv);
  clang_args.insert(clang_args.end(), after_dashes.begin(), after_dashes.end());

  RaceJob job;
  if (!sizes(block, job.launch.block) || !sizes(grid, job.launch.grid)) {
    std::cerr << "error: --blockDim / --gridDim take 1 to 3 sizes between 1 and 1024\n";
    return 2;
  }
  job.launch.elements = elements;
  for (const std::string& a : size_texts)
    arg_texts.push_back("@" + a);
  for (const std::string& a : arg_texts) {
    size_t eq = a.find('=');
    try {
      if (eq == std::string::npos || eq == 0) throw std::invalid_argument(a);
      size_t used = 0;
      std::string v = a.substr(eq + 1);
      job.launch.args[a.substr(0, eq)] = std::stoll(v, &used);
      if (used != v.size()) throw std::invalid_argument(a);
    } catch (...) {
      std::cerr << "error: " << (a[0] == '@' ? "--size '" + a.substr(1) : "--arg '" + a)
                << "' is not NAME=INTEGER\n";
      return 2;
    }
  }
  bool ok = false;
  std::string code = read_file(file, &ok);
  if (!ok) {
    std::cerr << file << ": error: " << unreadable(file) << "\n";
    return 2;
  }
  fs::path dir = keep.empty()
                     ? fs::temp_directory_path() / ("funmem-race-run-" + std::to_string(::getpid()))
                     : fs::path(keep);
  RaceDetector det(code, file, dir.string(), clang_args);
  auto cleanup = [&] {
    if (keep.empty()) fs::remove_all(dir);
  };
  if (!det.errors().empty()) {
    for (const std::string& e : det.errors())
      std::cout << e << "\n";
    cleanup();
    return 2;
  }
  if (det.kernels().empty()) {
    std::cout << file << ": error: no __global__ function with a body\n";
    cleanup();
    return 2;
  }
  std::vector<JobResult> results = det.run({job}, seconds, work).front();
  cleanup();
  bool raced = false, failed = false;
  json out = {{"file", file}, {"kernels", json::array()}};
  std::string launch = "blockDim " + block + " gridDim " + grid;
  for (const JobResult& r : results) {
    raced = raced || !r.races.empty();
    failed = failed || !r.finished;
    if (as_json) {
      json jk = {{"kernel", r.kernel},
                 {"finished", r.finished},
                 {"races", json::array()},
                 {"errors", r.errors}};
      for (const ObservedRace& x : r.races)
        jk["races"].push_back(
            {{"object", x.object}, {"byte", x.byte}, {"first", x.first}, {"second", x.second}});
      out["kernels"].push_back(jk);
      continue;
    }
    std::printf("%s: kernel %s: %s (%s)\n", file.c_str(), r.kernel.c_str(),
                !r.finished       ? "did not finish"
                : r.races.empty() ? "no race observed"
                                  : "race",
                launch.c_str());
    for (const ObservedRace& x : r.races)
      std::printf("  race on %s, byte %lld:\n    %s\n    %s\n", x.object.c_str(),
                  static_cast<long long>(x.byte), x.first.c_str(), x.second.c_str());
    for (const std::string& e : r.errors)
      std::printf("  %s\n", e.c_str());
  }
  if (as_json) std::printf("%s\n", out.dump(2).c_str());
  return failed ? 2 : raced ? 1 : 0;
}
