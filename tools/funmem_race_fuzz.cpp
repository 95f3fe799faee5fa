// funmem-race-fuzz: the differential campaign of funmem-extract's static verdicts
// against the dynamic race detector (docs/extract.md). Every kernel of the given files
// is mutated; each mutant is checked statically and run (all mutants of a file compiled
// once, mutant schemata); a static `race-free` where a race is observed, or a static
// `race` whose witness launch runs without one, is a failure, shrunk and written to
// --regress-dir.
#include "frontend/campaign/differential.h"
#include "support/files.h"
#include "tools/guarded_main.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace funmem;
using namespace funmem::frontend;
namespace fs = std::filesystem;

static int tool_main(int argc, char** argv);

int main(int argc, char** argv) {
  return funmem::guarded_main("funmem-race-fuzz", [&] { return tool_main(argc, argv); });
}

static int tool_main(int argc, char** argv) {
  CLI::App app{
      "funmem-race-fuzz: mutate CUDA kernels, compare static verdicts with observed races"};
  std::vector<std::string> inputs;
  RaceCampaignOptions opt;
  int jobs = 1;
  std::string broken, work;
  app.add_option("inputs", inputs, "CUDA files or directories (searched for .cu files)")
      ->required();
  app.add_option("--pairs", opt.pairs_per_kernel,
                 "random second-order mutants per file (default 0: each mutation alone)");
  app.add_option("--seed", opt.seed, "seed of the pairs");
  app.add_option("--jobs", jobs, "files checked at once");
  app.add_option("--seconds", opt.seconds, "time limit of one dynamic run");
  app.add_option("--budget-ms", opt.budget_ms,
                 "the static checker's budget per kernel, in ms of solver work (default 2000; "
                 "unknown when spent)");
  app.add_option("--regress-dir", opt.regress_dir, "where shrunk failures are written");
  app.add_option(
      "--broken", broken,
      "a deliberately broken extractor: dropped-member-stores (for testing the campaign)");
  app.add_option("--work-dir", work, "build directory (default: a temporary one, removed)");
  CLI11_PARSE(app, argc, argv);
  if (!broken.empty() && broken != "dropped-member-stores" && broken != "unvisited-member-stores") {
    std::fprintf(stderr,
                 "error: --broken takes dropped-member-stores or unvisited-member-stores\n");
    return 2;
  }
  opt.extract.broken = broken;
  std::vector<fs::path> files;
  for (const std::string& in : inputs) {
    if (fs::is_directory(in)) {
      for (const auto& e : fs::recursive_directory_iterator(in))
        if (e.path().extension() == ".cu") files.push_back(e.path());
    } else if (fs::exists(in)) {
      files.push_back(in);
    } else {
      std::fprintf(stderr, "%s: error: no such file or directory\n", in.c_str());
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  bool temp = work.empty();
  fs::path root =
      temp ? fs::temp_directory_path() / ("funmem-race-fuzz-" + std::to_string(::getpid()))
           : fs::path(work);
  std::mutex mu;
  RaceCampaignResult total;
  std::atomic<size_t> next{0};
  int files_done = 0;
  auto worker = [&](int id) {
    for (size_t i; (i = next++) < files.size();) {
      bool ok = false;
      std::string code = read_file(files[i].string(), &ok);
      if (!ok) continue;
      RaceCampaignOptions o = opt;
      o.work_dir = (root / ("w" + std::to_string(id)) / std::to_string(i)).string();
      RaceCampaignResult r = campaign_file(code, files[i].string(), o);
      fs::remove_all(o.work_dir);
      std::lock_guard<std::mutex> l(mu);
      ++files_done;
      total.kernels += r.kernels;
      total.mutants += r.mutants;
      total.static_race_free += r.static_race_free;
      total.static_race += r.static_race;
      total.dynamic_races += r.dynamic_races;
      total.skipped += r.skipped;
      total.compile_seconds += r.compile_seconds;
      total.static_seconds += r.static_seconds;
      total.dynamic_seconds += r.dynamic_seconds;
      for (Failure& f : r.failures) {
        std::printf("%s: %s: %s\n  %s\n", f.file.c_str(), f.kind.c_str(), f.what.c_str(),
                    f.detail.c_str());
        total.failures.push_back(std::move(f));
      }
      std::printf("[%d/%zu] %s: %d mutant(s), %zu failure(s), %.1f s\n", files_done, files.size(),
                  files[i].string().c_str(), r.mutants, r.failures.size(), r.seconds);
      std::fflush(stdout);
    }
  };
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> ts;
  for (int j = 0; j < std::max(1, jobs); ++j)
    ts.emplace_back(worker, j);
  for (std::thread& t : ts)
    t.join();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (temp) fs::remove_all(root);
  std::printf("%zu file(s), %d kernel(s), %d mutant(s): static race-free %d, race %d; dynamic "
              "races %d; skipped %d; %zu failure(s)\n",
              files.size(), total.kernels, total.mutants, total.static_race_free, total.static_race,
              total.dynamic_races, total.skipped, total.failures.size());
  std::printf("%.1f s (%.1f mutants/s): compiling %.1f s, static %.1f s, dynamic %.1f s\n", secs,
              secs > 0 ? total.mutants / secs : 0.0, total.compile_seconds, total.static_seconds,
              total.dynamic_seconds);
  return total.failures.empty() ? 0 : 1;
}
