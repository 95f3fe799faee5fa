// funmem-race-fuzz: the differential campaign of funmem-extract's static verdicts
// against the dynamic race detector (docs/extract.md). Every kernel of the given files
// is mutated; each mutant is checked statically and run (all mutants of a file compiled
// once, mutant schemata); a static `race-free` where a race is observed, or a static
// `race` whose witness launch runs without one, is a failure, shrunk and written to
// --regress-dir.
#include "frontend/campaign/differential.h"
#include "frontend/campaign/generator.h"
#include "support/files.h"
#include "tools/guarded_main.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace funmem;
using namespace funmem::frontend;
namespace fs = std::filesystem;

static int tool_main(int argc, char** argv);
static int generated(const RaceCampaignOptions& opt, uint64_t count, uint64_t first, int batch,
                     bool simple, int jobs, const std::string& work,
                     const std::string& coverage_file);
static int mutated(const RaceCampaignOptions& opt, const std::vector<std::string>& inputs, int jobs,
                   const std::string& work);

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
  uint64_t generate = 0, first = 0;
  int batch = 25;
  std::string coverage_file;
  app.add_option("inputs", inputs,
                 "CUDA files or directories (searched for .cu files); none with --generate");
  app.add_option("--generate", generate,
                 "check N generated kernels (seeded by --seed) instead of mutating files");
  app.add_option("--first", first, "with --generate: the index of the first kernel (default 0)");
  app.add_option("--batch", batch,
                 "with --generate: kernels per file (one parse, one detector build; default 25)");
  std::string emit;
  bool simple = false;
  app.add_flag("--simple", simple,
               "with --generate: the simple profile (short, shallow kernels, none of the "
               "constructs the extractor refuses)");
  app.add_option("--emit", emit,
                 "with --generate: write the generated kernels to this folder (one .cu file "
                 "each) and check nothing");
  app.add_option("--coverage", coverage_file,
                 "with --generate: also write the construct-coverage report to this file");
  app.add_option("--pairs", opt.pairs_per_kernel,
                 "random second-order mutants per file (default 0: each mutation alone)");
  app.add_option("--seed", opt.seed, "seed of the pairs");
  app.add_option("--jobs", jobs, "files checked at once");
  app.add_option("--seconds", opt.seconds,
                 "guard against a dynamic run that hangs without touching memory (default 60; "
                 "a run's budget is 20 million accesses and barrier passes)");
  app.add_option("--budget-ms", opt.budget_ms,
                 "the static checker's budget per kernel, in ms of solver work (default 2000, "
                 "300 with --generate; unknown when spent)");
  app.add_option("--regress-dir", opt.regress_dir, "where shrunk failures are written");
  static const std::vector<std::string> variants = {
      "dropped-member-stores", "unvisited-member-stores", "dropped-casts",
      "unread-loop-headers",   "distinct-extern-shared",  "unchecked-loop-summaries"};
  std::string names;
  for (const std::string& v : variants)
    names += (names.empty() ? "" : ", ") + v;
  app.add_option("--broken", broken,
                 "a deliberately broken extractor (for testing the campaigns): " + names);
  app.add_option("--work-dir", work, "build directory (default: a temporary one, removed)");
  CLI11_PARSE(app, argc, argv);
  if (!broken.empty() && std::find(variants.begin(), variants.end(), broken) == variants.end()) {
    std::fprintf(stderr, "error: --broken takes one of %s\n", names.c_str());
    return 2;
  }
  opt.extract.broken = broken;
  if (generate > 0 && !emit.empty()) {
    fs::create_directories(emit);
    for (uint64_t i = first; i < first + generate; ++i) {
      GeneratedKernel k = generate_kernel(opt.seed, i, simple);
      std::ofstream(fs::path(emit) / (k.name + ".cu")) << k.source;
    }
    return 0;
  }
  if (generate > 0 && app.count("--budget-ms") == 0) {
    // Generated kernels are many and small: an open question costs 300 ms of work.
    opt.budget_ms = 300;
    opt.search_limit = 5000;
  }
  // A job runs every kernel of a batch (25 by default) at one launch.
  if (generate > 0)
    return generated(opt, generate, first, batch, simple, jobs, work, coverage_file);
  if (inputs.empty()) {
    std::fprintf(stderr, "error: give CUDA files or directories, or --generate N\n");
    return 2;
  }
  return mutated(opt, inputs, jobs, work);
}

/// The mutation campaign over the given files, shared out among --jobs workers.
static int mutated(const RaceCampaignOptions& opt, const std::vector<std::string>& inputs, int jobs,
                   const std::string& work) {
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

/// --generate: batches of generated kernels shared out among --jobs workers.
static int generated(const RaceCampaignOptions& opt, uint64_t count, uint64_t first, int batch,
                     bool simple, int jobs, const std::string& work,
                     const std::string& coverage_file) {
  batch = std::max(1, batch);
  bool temp = work.empty();
  fs::path root =
      temp ? fs::temp_directory_path() / ("funmem-race-fuzz-" + std::to_string(::getpid()))
           : fs::path(work);
  const uint64_t batches =
      (count + static_cast<uint64_t>(batch) - 1) / static_cast<uint64_t>(batch);
  std::mutex mu;
  GeneratedCampaignResult total;
  std::atomic<uint64_t> next{0};
  uint64_t done = 0;
  auto worker = [&](int id) {
    for (uint64_t b; (b = next++) < batches;) {
      GeneratedCampaignOptions g;
      g.seed = opt.seed;
      g.first = first + b * static_cast<uint64_t>(batch);
      g.count = std::min<uint64_t>(static_cast<uint64_t>(batch), first + count - g.first);
      g.batch = batch;
      g.simple = simple;
      g.race = opt;
      g.race.work_dir = (root / ("w" + std::to_string(id))).string();
      GeneratedCampaignResult r = generated_campaign(g);
      std::lock_guard<std::mutex> l(mu);
      ++done;
      for (const Failure& f : r.failures)
        std::printf("%s: %s: %s\n  %s\n", f.file.c_str(), f.kind.c_str(), f.what.c_str(),
                    f.detail.c_str());
      total.add(r);
      if (done % 20 == 0 || done == batches || !r.failures.empty()) {
        std::printf("[%llu/%llu batches] %llu kernel(s), %zu failure(s)\n",
                    static_cast<unsigned long long>(done), static_cast<unsigned long long>(batches),
                    static_cast<unsigned long long>(total.kernels), total.failures.size());
        std::fflush(stdout);
      }
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
  std::string report = coverage_report(total);
  std::printf("%s", report.c_str());
  if (!coverage_file.empty()) std::ofstream(coverage_file) << report;
  auto u = [](uint64_t x) { return static_cast<unsigned long long>(x); };
  std::printf("%llu generated kernel(s) (seed %llu, from %llu): static race-free %llu, race %llu, "
              "unknown %llu, unsupported %llu; %llu run(s) compared, %llu with a race; %llu "
              "witness(es) confirmed; %zu failure(s)\n",
              u(total.kernels), u(opt.seed), u(first), u(total.race_free), u(total.race),
              u(total.unknown), u(total.unsupported), u(total.runs), u(total.observed),
              u(total.witnesses), total.failures.size());
  std::printf("%.1f s (%.1f kernels/s): static %.1f s, compiling %.1f s, dynamic %.1f s\n", secs,
              secs > 0 ? static_cast<double>(total.kernels) / secs : 0.0, total.static_seconds,
              total.compile_seconds, total.dynamic_seconds);
  return total.failures.empty() ? 0 : 1;
}
