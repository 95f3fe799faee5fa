// funmem-race-run: the dynamic race detector (docs/extract.md). Instruments every load
// and store of a CUDA file with Clang's Rewriter, runs each kernel on the CPU emulation
// (a real thread per CUDA thread, a real barrier per __syncthreads) for one launch,
// and reports every race it observed with both threads and the address.
#include "frontend/dynamic/confirm.h"
#include "frontend/dynamic/race_run.h"
#include "support/files.h"
#include "tools/guarded_main.h"
#include "tools/pass_through.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
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

/// Reads `NAME=INTEGER` (`--arg`; decimal or 0x...) or `@NAME=COUNT` (`--size`, 1 to
/// 2^40) into the launch; why not, or "".
std::string read_arg(const std::string& a, Launch& l) {
  size_t eq = a.find('=');
  try {
    if (eq == std::string::npos || eq == 0) throw std::invalid_argument(a);
    size_t used = 0;
    std::string v = a.substr(eq + 1);
    const bool hex = v.find("0x") != std::string::npos || v.find("0X") != std::string::npos;
    const int64_t value = std::stoll(v, &used, hex ? 16 : 10);
    l.args[a.substr(0, eq)] = value;
    if (used != v.size() || (a[0] == '@' && (value < 1 || value > int64_t{1} << 40)))
      throw std::invalid_argument(a);
  } catch (...) {
    return "error: " + (a[0] == '@' ? "--size '" + a.substr(1) : "--arg '" + a) +
           (a[0] == '@' ? "' is not NAME=COUNT (1 to 2^40)\n" : "' is not NAME=INTEGER\n");
  }
  return "";
}

/// Why a launch's `--arg` / `--size` name is none of the file's kernels' (a misspelt one
/// would leave the value it meant to set at its default without a word), or "".
std::string unknown_name(const RaceDetector& det, const Launch& l, const std::string& file) {
  for (const auto& [n, v] : l.args) {
    if (std::find(det.names().begin(), det.names().end(), n) != det.names().end()) continue;
    const bool size = n[0] == '@';
    std::string known;
    for (const std::string& k : det.names())
      if ((k[0] == '@') == size) known += (known.empty() ? "" : ", ") + k.substr(size ? 1 : 0);
    return "error: " + (size ? "--size '" + n.substr(1) : "--arg '" + n) + "': no kernel of " +
           file + " has " + (size ? "a pointer" : "a scalar parameter or member") +
           " of that name" + (known.empty() ? std::string() : " (it has " + known + ")") + "\n";
  }
  return "";
}

/// Why a launch's `--arg` value is outside its place's type in some kernel (the kernel
/// would get it converted, another value than the one asked for), or "".
std::string out_of_type(const RaceDetector& det, const Launch& l) {
  for (const ScalarRange& r : det.ranges()) {
    auto it = l.args.find(r.path);
    if (it == l.args.end() || (it->second >= r.lo && it->second <= r.hi)) continue;
    return "error: --arg '" + r.path + "=" + std::to_string(it->second) + "': '" + r.path +
           "' of kernel " + r.kernel + " has type '" + r.type + "', whose values are " +
           std::to_string(r.lo) + " to " + std::to_string(r.hi) + "\n";
  }
  return "";
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
                 "elements of every pointer argument's buffer (default threads^2 + 64)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  std::vector<std::string> size_texts;
  app.add_option("--size", size_texts, "one pointer argument's element count NAME=COUNT");
  app.add_option("--work", work, "the run's budget: accesses and barrier passes (default 20000000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 62));
  app.add_option("--seconds", seconds,
                 "guard against a run that loops without touching memory: seconds of its CPU "
                 "time (default 60)")
      ->check(CLI::Range(1, 86400));
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
  for (const std::string& a : arg_texts)
    if (std::string e = read_arg(a, job.launch); !e.empty()) {
      std::cerr << e;
      return 2;
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
  if (std::string e = unknown_name(det, job.launch, file) + out_of_type(det, job.launch);
      !e.empty()) {
    std::cerr << e;
    cleanup();
    return 2;
  }
  // CUDA does not order blocks: with more than one, they also run from the last to the
  // first; the races of both runs count.
  std::vector<JobResult> results =
      merge_block_orders(det.run(in_both_block_orders(job), seconds, work));
  cleanup();
  // A race seen is a race (also in a run that stopped); a run that stopped or had
  // errors (accesses out of bounds, a construct not modelled, a kernel not run) did not
  // check everything: no race observed is then no answer.
  bool raced = false, failed = false;
  json out = {{"file", file}, {"kernels", json::array()}};
  std::string launch = "blockDim " + block + " gridDim " + grid;
  for (const JobResult& r : results) {
    raced = raced || !r.races.empty();
    failed = failed || !r.finished || !r.errors.empty();
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
                !r.races.empty()    ? (r.finished ? "race" : "race (the run did not finish)")
                : !r.finished       ? "did not finish"
                : !r.errors.empty() ? "no race observed, but not every access was checked"
                                    : "no race observed",
                launch.c_str());
    for (const ObservedRace& x : r.races)
      std::printf("  race on %s, byte %lld:\n    %s\n    %s\n", x.object.c_str(),
                  static_cast<long long>(x.byte), x.first.c_str(), x.second.c_str());
    for (const std::string& e : r.errors)
      std::printf("  %s\n", e.c_str());
  }
  if (as_json) std::printf("%s\n", out.dump(2).c_str());
  return raced ? 1 : failed ? 2 : 0;
}
