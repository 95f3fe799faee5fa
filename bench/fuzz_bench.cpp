// funmem-bench-fuzz: generated programs per second through the whole pipeline on one
// thread (the target: 500 per second for small sizes). For each generator setting
// (statements per body, nesting depth, largest size): --count programs of campaign
// --seed are generated and checked as funmem-fuzz checks them (round trip, type check,
// every pipeline stage type-checked and run on every data set against the value
// semantics, race-free); the rate is the best of --repeat runs, each starting with
// empty solver caches. Prints a Markdown table; exits 1 when a program fails.
#include "analysis/solver.h"
#include "tools/malloc_info.h"
#include "verifier/fuzz.h"
#include "verifier/gen.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace funmem;

int main(int argc, char** argv) {
  CLI::App app{"funmem-bench-fuzz: generated programs per second through the pipeline"};
  int count = 1000, repeat = 3;
  uint64_t seed = 1;
  app.add_option("--count", count, "programs per setting")->check(CLI::Range(1, 1000000));
  app.add_option("--repeat", repeat, "runs per setting (the fastest is reported)")
      ->check(CLI::Range(1, 100));
  app.add_option("--seed", seed, "campaign seed (program k has seed program_seed(seed, k))");
  std::vector<int> only;
  app.add_option("--setting", only, "run only this setting: statements depth size")->expected(3);
  CLI11_PARSE(app, argc, argv);
  struct Setting {
    int stmts, depth, size;
  };
  std::vector<Setting> settings = {{4, 2, 4}, {3, 2, 4}, {3, 1, 4}, {2, 1, 4},
                                   {2, 1, 2}, {2, 0, 4}, {1, 0, 1}};
  if (!only.empty()) settings = {{only[0], only[1], only[2]}};
  std::printf("| statements per body | depth | largest size | programs | checks | best s | "
              "programs/s |\n|---|---|---|---|---|---|---|\n");
  int failures = 0;
  for (const Setting& st : settings) {
    GenOptions gen;
    gen.max_stmts = st.stmts;
    gen.max_depth = st.depth;
    gen.max_size = st.size;
    double best = 1e300;
    long long checks = 0;
    for (int r = 0; r < repeat; ++r) {
      Solver::clear_shared_cache();
      checks = 0;
      const auto t0 = std::chrono::steady_clock::now();
      for (int k = 0; k < count; ++k) {
        FuzzOutcome o =
            fuzz_program(generate_fun(program_seed(seed, static_cast<uint64_t>(k)), gen));
        checks += o.checks;
        if (!o.ok && r == 0) {
          ++failures;
          std::fprintf(stderr, "program %d (%d/%d/%d) fails: %s: %s\n", k, st.stmts, st.depth,
                       st.size, o.check.c_str(), o.detail.c_str());
        }
      }
      best = std::min(best,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::printf("| %d | %d | %d | %d | %lld | %.2f | %.0f |\n", st.stmts, st.depth, st.size, count,
                checks, best, count / best);
    std::fflush(stdout);
  }
  std::printf("\nallocator: %s\n", allocator_name().c_str());
  return failures ? 1 : 0;
}
