// funmem-bench-tune: the monotonic autotuner against random search and hill climbing on
// the emulated tuning forests (tune/emulator.h), over many seeds (the table in
// docs/tuning.md). Per case: program runs the tuner spends and how close it gets to the
// brute-force optimum; runs the baselines need to come within 1% and 5% of it; and the
// quality of each method's configuration after as many runs as the tuner took.
#include "tune/baselines.h"
#include "tune/emulator.h"
#include "tune/tuner.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace funmem::tune;

namespace {

/// Runs after which the incumbent is within `within` of the optimum (-1: never).
int runs_to(const EmuCase& c, const SearchTrace& t, double opt, double within) {
  for (const auto& [runs, cfg] : t.incumbents)
    if (c.total(cfg) <= opt * (1 + within)) return runs;
  return -1;
}

/// The incumbent's quality (total / optimum) once `budget` runs are spent.
double quality_at(const EmuCase& c, const SearchTrace& t, double opt, int budget) {
  double q = -1;
  for (const auto& [runs, cfg] : t.incumbents)
    if (runs <= budget) q = c.total(cfg) / opt;
  return q < 0 ? c.total(std::vector<int64_t>(c.forest.thresholds.size(), kInf)) / opt : q;
}

struct Stat {
  std::vector<double> xs;
  int missed = 0;
  void add(double x) {
    if (x < 0)
      ++missed;
    else
      xs.push_back(x);
  }
  double median() {
    if (xs.empty()) return -1;
    std::sort(xs.begin(), xs.end());
    return xs[xs.size() / 2];
  }
  double mean() const {
    double s = 0;
    for (double x : xs)
      s += x;
    return xs.empty() ? -1 : s / static_cast<double>(xs.size());
  }
  std::string text() {
    char b[64];
    if (xs.empty()) return "never";
    std::snprintf(b, sizeof b, "%.0f (%.0f)", mean(), median());
    std::string s = b;
    if (missed) s += " (" + std::to_string(missed) + " never)";
    return s;
  }
};

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"funmem-bench-tune: the monotonic autotuner against random search and hill "
               "climbing on emulated tuning forests"};
  int seeds = 50, budget = 2000, repeats = 1;
  double noise = 0.01;
  app.add_option("--seeds", seeds, "seeds per case");
  app.add_option("--budget", budget, "runs a baseline may spend");
  app.add_option("--noise", noise, "relative standard deviation of a run's time");
  app.add_option("--repeats", repeats, "the tuner's timings per configuration");
  CLI11_PARSE(app, argc, argv);

  std::printf(
      "| case | thresholds | monotone seeds | tuner: runs (mean) | tuner: within 1%% / "
      "5%% | tuner: flagged when not optimal | random: runs to 1%% / 5%%, mean (median) | "
      "hill climbing: runs to 1%% / 5%%, mean (median) | quality at the tuner's runs: tuner / "
      "random / hill |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& name : emulator_case_names()) {
    Stat tuner_runs, r1, r5, h1, h5, qt, qr, qh;
    int mono = 0, within1 = 0, within5 = 0, not_opt = 0, flagged = 0;
    size_t thresholds = 0;
    for (int seed = 1; seed <= seeds; ++seed) {
      EmuCase c = emulator_case(name, static_cast<uint64_t>(seed));
      c.noise = noise;
      thresholds = c.forest.thresholds.size();
      mono += c.monotone() ? 1 : 0;
      const double opt = c.optimum().total;
      EmuRunner rt(c, static_cast<uint64_t>(seed));
      TuneOptions o;
      o.repeats = repeats;
      TuneResult res = tune_program(c.forest, rt, o);
      const double q = c.total(res.values) / opt;
      tuner_runs.add(rt.runs);
      within1 += q <= 1.01 ? 1 : 0;
      within5 += q <= 1.05 ? 1 : 0;
      if (q > 1.01) {
        ++not_opt;
        flagged += res.optimal() ? 0 : 1;
      }
      EmuRunner rr(c, static_cast<uint64_t>(seed)), rh(c, static_cast<uint64_t>(seed));
      SearchTrace rs = random_search(c.forest, rr, budget, static_cast<uint64_t>(seed));
      SearchTrace hc = hill_climb(c.forest, rh, budget, static_cast<uint64_t>(seed));
      r1.add(runs_to(c, rs, opt, 0.01));
      r5.add(runs_to(c, rs, opt, 0.05));
      h1.add(runs_to(c, hc, opt, 0.01));
      h5.add(runs_to(c, hc, opt, 0.05));
      qt.add(q);
      qr.add(quality_at(c, rs, opt, rt.runs));
      qh.add(quality_at(c, hc, opt, rt.runs));
    }
    auto q3 = [](double x) {
      if (std::isinf(x)) return std::string("fails");
      char b[32];
      std::snprintf(b, sizeof b, "%.3f", x);
      return std::string(b);
    };
    std::printf("| %s | %zu | %d/%d | %.1f | %d/%d / %d/%d | %d/%d | %s / %s | %s / %s | %s / "
                "%s / %s |\n",
                name.c_str(), thresholds, mono, seeds, tuner_runs.mean(), within1, seeds, within5,
                seeds, flagged, not_opt, r1.text().c_str(), r5.text().c_str(), h1.text().c_str(),
                h5.text().c_str(), q3(qt.mean()).c_str(), q3(qr.mean()).c_str(),
                q3(qh.mean()).c_str());
    std::fflush(stdout);
  }
  return 0;
}
