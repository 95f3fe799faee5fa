// funmem-fuzz: generates random well-typed FUN programs and runs every check on each
// (verifier/fuzz.h). Deterministic for a seed: program k of a campaign is generated from
// program_seed(seed, k), whatever the number of jobs. Exit 1 when a check failed.
#include "analysis/pipeline.h"
#include "verifier/fuzz.h"
#include "verifier/prover_check.h"

#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace funmem;

namespace {

size_t lines(const std::string& s) {
  return split_lines(s).size();
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"funmem-fuzz: property-based fuzzing of the FUN/FUNMEM toolkit"};
  double seconds = 10;
  uint64_t seed = 1;
  int jobs = 1;
  int64_t count = -1;
  std::string mode = "programs", save;
  GenOptions gen;
  app.add_option("--seconds", seconds, "stop after this many seconds");
  app.add_option("--count", count, "stop after this many programs (instead of --seconds)");
  app.add_option("--seed", seed, "campaign seed");
  app.add_option("--jobs", jobs, "worker threads")->check(CLI::Range(1, 64));
  app.add_option("--mode", mode,
                 "programs: random FUN programs through the pipeline; lmads: random LMAD "
                 "pairs, the prover's answers against enumeration")
      ->check(CLI::IsMember({"programs", "lmads"}));
  app.add_option("--max-stmts", gen.max_stmts, "statements per body")->check(CLI::Range(1, 50));
  app.add_option("--max-depth", gen.max_depth, "nesting depth")->check(CLI::Range(0, 6));
  app.add_option("--max-size", gen.max_size, "largest size in data sets")->check(CLI::Range(1, 64));
  app.add_flag("--out-of-bounds", gen.out_of_bounds,
               "generate programs that must end in a bounds error, or in an assume that gives an "
               "update's bounds too late (every stage must end with it)");
  app.add_option("--save", save, "write the first failing program to this file");
  std::vector<std::string> broken;
  app.add_option("--broken", broken,
                 "switch on a deliberately broken pass variant (to show the fuzzer finds it)")
      ->check(CLI::IsMember(broken_variant_names()));
  std::string regress_dir;
  app.add_option("--regress-dir", regress_dir,
                 "write the shrunk failing program here (corpus/regress keeps it as a test)");
  bool no_shrink = false;
  app.add_flag("--no-shrink", no_shrink, "report the failing program as generated");
  bool print = false;
  app.add_flag("--print", print, "print program SEED (the --seed value) and exit");
  CLI11_PARSE(app, argc, argv);
  PassOptions passes;
  for (const std::string& b : broken)
    set_broken_variant(passes, b);
  std::string broken_text = broken_variants_text(passes);
  if (!broken_text.empty()) broken_text = " " + broken_text;
  if (print) {
    std::fputs(generate_fun(seed, gen).c_str(), stdout);
    return 0;
  }

  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  std::atomic<int64_t> next{0}, done{0}, checks{0}, failures{0};
  std::mutex mu;
  bool reported = false;
  std::string found_text; // the (shrunk) failing program with its header
  int64_t found_index = -1;
  auto worker = [&] {
    for (;;) {
      int64_t k = next.fetch_add(1);
      if (count >= 0 ? k >= count : elapsed() >= seconds) return;
      if (failures.load() > 0) return;
      uint64_t s = program_seed(seed, static_cast<uint64_t>(k));
      if (mode == "lmads") {
        LmadQuestion q = lmad_fuzz_question(s);
        LmadFuzzOutcome o = fuzz_lmad(q, passes.sc.prover);
        checks += o.checks;
        ++done;
        if (o.ok) continue;
        ++failures;
        std::lock_guard<std::mutex> lock(mu);
        if (reported) return;
        reported = true;
        std::printf("\nFAILURE in question %lld (seed %llu):\n%s", static_cast<long long>(k),
                    static_cast<unsigned long long>(s), o.detail.c_str());
        if (!no_shrink) {
          int steps = 0;
          q = shrink_lmad(q, &steps, passes.sc.prover);
          std::printf("\nshrunk in %d steps to:\n%s", steps,
                      fuzz_lmad(q, passes.sc.prover).detail.c_str());
        }
        found_text = "# found by funmem-fuzz --mode lmads --seed " + std::to_string(seed) +
                     " (question " + std::to_string(k) + ")" + broken_text + "\n" +
                     prove_corpus_entry(q);
        found_index = k;
        return;
      }
      std::string text = generate_fun(s, gen);
      FuzzOutcome o = fuzz_program(text, passes);
      checks += o.checks;
      ++done;
      if (!o.ok) {
        ++failures;
        std::lock_guard<std::mutex> lock(mu);
        if (reported) return;
        reported = true;
        std::printf("\nFAILURE in program %lld (program seed %llu): check '%s'\n%s\n%s",
                    static_cast<long long>(k), static_cast<unsigned long long>(s), o.check.c_str(),
                    o.detail.c_str(), text.c_str());
        std::string small = text;
        if (!no_shrink) {
          int steps = 0;
          small = shrink(text, o, &steps, passes);
          FuzzOutcome again = fuzz_program(small, passes);
          std::printf("\nshrunk in %d steps from %zu to %zu lines; it fails check '%s':\n%s\n%s",
                      steps, lines(text), lines(small), again.check.c_str(), again.detail.c_str(),
                      small.c_str());
          o = again;
        }
        std::string header = "-- found by funmem-fuzz --seed " + std::to_string(seed) +
                             " (program " + std::to_string(k) + ")" + broken_text + ": check '" +
                             o.check + "' failed:\n";
        for (const std::string& l : split_lines(o.detail))
          header += "--   " + l + "\n";
        found_text = header + small;
        found_index = k;
        return;
      }
    }
  };
  std::vector<std::thread> ts;
  for (int j = 0; j < jobs; ++j)
    ts.emplace_back(worker);
  // The progress line every half second; the workers' end wakes it at once (the
  // run's time is not rounded up to the next tick).
  std::mutex progress_mutex;
  std::condition_variable progress_cv;
  bool workers_done = false;
  std::thread progress([&] {
    std::unique_lock<std::mutex> lock(progress_mutex);
    for (bool last = false; !last;) {
      last =
          progress_cv.wait_for(lock, std::chrono::milliseconds(500), [&] { return workers_done; });
      std::fprintf(stderr, "\r%.1f s: %lld %s (%.0f/s), %lld checks passed, %lld failures",
                   elapsed(), static_cast<long long>(done.load()),
                   mode == "lmads" ? "questions" : "programs",
                   static_cast<double>(done.load()) / std::max(elapsed(), 1e-9),
                   static_cast<long long>(checks.load()), static_cast<long long>(failures.load()));
    }
  });
  for (std::thread& t : ts)
    t.join();
  {
    std::lock_guard<std::mutex> lock(progress_mutex);
    workers_done = true;
  }
  progress_cv.notify_one();
  progress.join();
  if (found_index >= 0) {
    if (!save.empty()) std::ofstream(save) << found_text;
    if (!regress_dir.empty()) {
      // The regression test runs the correct passes: name what their sc refuses.
      std::string text = found_text;
      if (mode == "programs")
        for (const std::string& p : sc_refusals(found_text))
          text += "-- refuses: " + p + "\n";
      std::string path = regress_dir + "/fuzz-" + std::to_string(seed) + "-" +
                         std::to_string(found_index) + (mode == "lmads" ? ".prove" : ".fun");
      std::ofstream(path) << text;
      std::printf("written to %s\n", path.c_str());
    }
  }
  std::fprintf(stderr, "\n");
  std::printf("%lld %s in %.1f s (%.0f/s), %lld checks passed, %lld failures\n",
              static_cast<long long>(done.load()), mode == "lmads" ? "questions" : "programs",
              elapsed(), static_cast<double>(done.load()) / std::max(elapsed(), 1e-9),
              static_cast<long long>(checks.load()), static_cast<long long>(failures.load()));
  return failures.load() > 0 ? 1 : 0;
}
