// The monotonic autotuner against brute force: hand-made runners, random unimodal
// size-variant thresholds (RapidCheck), and every emulator case over many seeds.
#include "tune/baselines.h"
#include "tune/emulator.h"
#include "tune/tuner.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace funmem::tune;

namespace {

/// One tree, one threshold; each data set is a list of P values (one launch each);
/// a launch at P costs `guarded(P)` in the guarded version, `below(P)` otherwise.
class TableRunner : public Runner {
public:
  std::vector<std::vector<int64_t>> sets;
  std::function<double(int64_t)> guarded, below;
  std::set<int64_t> failing; // P values where the guarded version runs out of memory
  int runs = 0;
  size_t datasets() const override { return sets.size(); }
  std::string dataset_name(size_t d) const override { return "d" + std::to_string(d); }
  RunResult run(size_t d, const std::vector<int64_t>& t) override {
    ++runs;
    RunResult r;
    for (int64_t p : sets[d]) {
      ++r.comparisons[0][p];
      if (p >= t[0]) {
        if (failing.count(p)) {
          r.status = RunResult::Status::Failed;
          r.error = "out of memory";
          return r;
        }
        r.ms += guarded(p);
      } else {
        r.ms += below(p);
      }
    }
    return r;
  }
  double time(size_t d, int64_t t) const {
    double s = 0;
    for (int64_t p : sets[d])
      s += p >= t ? (failing.count(p) ? 1e300 : guarded(p)) : below(p);
    return s;
  }
};

Forest one_threshold() {
  Forest f;
  f.thresholds.push_back({"t", -1, 100, ""});
  return f;
}

int ceil_log2(size_t n) {
  int k = 0;
  while ((size_t{1} << k) < n)
    ++k;
  return k;
}

/// The paper's bound: per data set one baseline run, then one run per size-invariant
/// threshold and O(log m) runs (here 2 * ceil(log2(m + 1))) for m distinct values.
int run_bound(const TuneResult& r) {
  int b = 0;
  for (const DatasetReport& d : r.datasets) {
    b += 1;
    for (const ThresholdTrace& t : d.thresholds)
      if (!t.values.empty()) b += t.values.size() == 1 ? 1 : 2 * ceil_log2(t.values.size() + 1);
  }
  return b;
}

} // namespace

TEST_CASE("intervals meet, and the default is clamped into them", "[tune]") {
  Interval a{0, 100}, b{50, kInf};
  CHECK(a.meet(b) == Interval{50, 100});
  CHECK(Interval{101, kInf}.meet(a).empty());
  CHECK(pick_value(Interval{50, 100}, 32768) == 100);
  CHECK(pick_value(Interval{0, kInf}, 32768) == 32768);
  CHECK(pick_value(Interval{40000, kInf}, 32768) == 40000);
  CHECK(Interval{3, kInf}.text() == "[3, inf]");
}

TEST_CASE("the tuning tree printed by a generated program parses", "[tune]") {
  std::string text = "threshold p.suff_outer_par_0 parent - default 32768 at p.fun:3:3\n"
                     "  P = n\n  P >= T: fm_kernel_0: outer parallel, inner sequential\n"
                     "threshold p.suff_intra_par_0 parent p.suff_outer_par_0 default 32 at "
                     "p.fun:3:3\n  P = m\n  otherwise: flat\n";
  std::string err;
  Forest f = parse_tuning_tree(text, &err);
  REQUIRE(err.empty());
  REQUIRE(f.thresholds.size() == 2);
  CHECK(f.thresholds[1].parent == 0);
  CHECK(f.thresholds[0].default_value == 32768);
  CHECK(f.thresholds[1].info.find("otherwise: flat") != std::string::npos);
  parse_tuning_tree("threshold a parent b default 1 at x\n", &err);
  CHECK(err.find("unknown parent 'b'") != std::string::npos);
  parse_tuning_tree("thresold a\n", &err);
  CHECK(err.find("line 1") != std::string::npos);
}

TEST_CASE("a size-invariant threshold takes one run per data set and the maximal interval",
          "[tune]") {
  TableRunner r;
  r.sets = {{10}, {1000}};
  r.guarded = [](int64_t p) { return p >= 500 ? 1.0 : 3.0; }; // wins at large P
  r.below = [](int64_t) { return 2.0; };
  TuneResult res = tune_program(one_threshold(), r, {});
  CHECK(res.runs == 4); // a baseline and one run per data set
  CHECK(res.datasets[0].thresholds[0].interval == Interval{11, kInf});
  CHECK(res.datasets[1].thresholds[0].interval == Interval{0, 1000});
  CHECK(res.intervals[0] == Interval{11, 1000});
  CHECK(res.values[0] == 100); // the default lies inside
  CHECK(res.optimal());
  CHECK(tuning_file(one_threshold(), res).find("t=100\n") != std::string::npos);
}

TEST_CASE("data sets that want disjoint intervals are reported as a conflict", "[tune]") {
  TableRunner r;
  // The guarded version wins only in the middle: not monotone.
  r.sets = {{10}, {1000}, {100000}};
  r.guarded = [](int64_t p) { return p == 1000 ? 1.0 : 3.0; };
  r.below = [](int64_t) { return 2.0; };
  TuneResult res = tune_program(one_threshold(), r, {});
  REQUIRE(res.conflicts.size() == 1);
  CHECK(res.intervals[0].empty());
  std::string rep = tuning_report(one_threshold(), res);
  CHECK(rep.find("d1 wants [0, 1000]") != std::string::npos);
  CHECK(rep.find("d2 wants [100001, inf]") != std::string::npos);
  CHECK(!res.optimal());
}

TEST_CASE("a failing guarded version counts as the slowest", "[tune]") {
  TableRunner r;
  r.sets = {{5, 50, 500, 5000}};
  r.guarded = [](int64_t) { return 1.0; };
  r.below = [](int64_t) { return 2.0; };
  r.failing = {5000}; // the guarded version runs out of memory at the largest size
  TuneResult res = tune_program(one_threshold(), r, {});
  // Any T <= 5000 fails, so the only working choice is inf: never the guarded version.
  CHECK(res.datasets[0].thresholds[0].interval == Interval{5001, kInf});
  CHECK(res.datasets[0].best_ms == Approx(8.0));
}

TEST_CASE("repeated timings take the minimum", "[tune]") {
  struct Noisy : TableRunner {
    int k = 0;
    RunResult run(size_t d, const std::vector<int64_t>& t) override {
      RunResult x = TableRunner::run(d, t);
      x.ms += (k++ % 3) * 10.0; // the first of every three runs is the true time
      return x;
    }
  } r;
  r.sets = {{100}};
  r.guarded = [](int64_t) { return 1.0; };
  r.below = [](int64_t) { return 2.0; };
  TuneOptions o;
  o.repeats = 3;
  TuneResult res = tune_program(one_threshold(), r, o);
  CHECK(res.runs == 6);
  CHECK(res.datasets[0].baseline_ms == Approx(2.0));
  CHECK(res.datasets[0].best_ms == Approx(1.0));
}

TEST_CASE("a run slower than monotonicity allows is warned about", "[tune]") {
  TableRunner r;
  // The guarded version loses at 10, wins at 20 and loses at 30 (by more): the search
  // ends at T = 20, slower than never choosing the guarded version.
  r.sets = {{10, 20, 30}};
  r.guarded = [](int64_t p) { return p == 10 ? 3.0 : p == 20 ? 1.0 : 5.0; };
  r.below = [](int64_t) { return 2.0; };
  TuneResult res = tune_program(one_threshold(), r, {});
  CHECK(!res.warnings.empty());
  CHECK(!res.optimal());
  CHECK(res.datasets[0].thresholds[0].interval == Interval{31, kInf});
  CHECK(res.datasets[0].best_ms == Approx(6.0));
}

TEST_CASE("size-variant search finds the brute-force optimum in O(log m) runs",
          "[tune][property]") {
  rc::prop("unimodal run times", [] {
    const auto m = *rc::gen::inRange<size_t>(1, 200);
    std::set<int64_t> vs;
    while (vs.size() < m)
      vs.insert(*rc::gen::inRange<int64_t>(0, 100000));
    std::vector<int64_t> ps(vs.begin(), vs.end());
    const int64_t cross = *rc::gen::inRange<int64_t>(0, 100001);
    const double gain = *rc::gen::inRange<int>(1, 100) / 10.0;
    TableRunner r;
    r.sets = {ps};
    // Monotone: the guarded version wins from `cross` on (ties resolved below).
    r.guarded = [=](int64_t p) { return p >= cross ? 1.0 : 1.0 + gain; };
    r.below = [](int64_t p) { return 1.0005 + static_cast<double>(p % 7) * 1e-3; }; // no ties
    TuneResult res = tune_program(one_threshold(), r, {});
    double brute = r.time(0, kInf);
    for (int64_t t : ps)
      brute = std::min(brute, r.time(0, t));
    RC_ASSERT(res.datasets[0].best_ms == brute);
    const Interval& iv = res.datasets[0].thresholds[0].interval;
    // Every T in the interval gives the optimum, and the interval is maximal.
    RC_ASSERT(r.time(0, iv.lb) == brute);
    RC_ASSERT(r.time(0, iv.ub == kInf ? kInf : iv.ub) == brute);
    if (iv.lb > 0) RC_ASSERT(r.time(0, iv.lb - 1) != brute || iv.lb - 1 < ps.front());
    RC_ASSERT(res.runs <= run_bound(res));
    RC_ASSERT(res.warnings.empty());
  });
}

TEST_CASE("the tuner finds the emulator's optimum on every monotone case within the bound",
          "[tune][emulator]") {
  std::map<std::string, int> monotone_seeds, flagged, nonmonotone;
  for (const std::string& name : emulator_case_names())
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      EmuCase c = emulator_case(name, seed);
      EmuRunner runner(c, seed);
      TuneResult res = tune_program(c.forest, runner, {});
      const EmuCase::Optimum opt = c.optimum();
      const double got = c.total(res.values);
      std::string why;
      if (c.monotone(&why)) {
        ++monotone_seeds[name];
        INFO(name << " seed " << seed << "\n" << tuning_report(c.forest, res));
        CHECK(got == Approx(opt.total).epsilon(1e-9));
        for (size_t d = 0; d < c.datasets.size(); ++d)
          CHECK(c.cost(d, res.values) == Approx(opt.per_dataset[d]).epsilon(1e-9));
        CHECK(res.optimal());
        CHECK(res.runs <= run_bound(res));
        if (!c.size_variant) // one run per version: a baseline and one per threshold
          for (const DatasetReport& d : res.datasets)
            for (const ThresholdTrace& t : d.thresholds)
              CHECK(t.runs <= 1);
      } else {
        ++nonmonotone[name];
        // Not monotone: either still optimal, or the tuner says it is not.
        if (got > opt.total * (1 + 1e-9)) {
          INFO(name << " seed " << seed << ": " << why);
          CHECK(!res.optimal());
          ++flagged[name];
        }
      }
    }
  // The cases are built to be (non-)monotone; the brute-force check agrees for most seeds.
  for (const char* n : {"mapscan", "lud", "locvolcalib", "bfast", "gemm"}) {
    INFO(n);
    CHECK(monotone_seeds[n] >= 10);
  }
  for (const char* n : {"mapscan-skewed", "gemm-skewed"}) {
    INFO(n);
    CHECK(nonmonotone[n] >= 10);
    CHECK(flagged[n] >= 1);
  }
}

TEST_CASE("noise: repeated runs keep the tuner on the optimum", "[tune][emulator]") {
  int optimal = 0, total = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    EmuCase c = emulator_case("mapscan", seed);
    if (!c.monotone()) continue;
    c.noise = 0.02;
    EmuRunner runner(c, seed);
    TuneOptions o;
    o.repeats = 5;
    TuneResult res = tune_program(c.forest, runner, o);
    ++total;
    optimal += c.total(res.values) <= c.optimum().total * 1.05 ? 1 : 0;
  }
  CHECK(total >= 8);
  CHECK(optimal >= total - 1);
}

TEST_CASE("the baselines search the same space and skip equal configurations",
          "[tune][baselines]") {
  EmuCase c = emulator_case("gemm", 3);
  EmuRunner r1(c, 1), r2(c, 1);
  SearchTrace rs = random_search(c.forest, r1, 10000, 5);
  // One threshold, five candidate values: five configurations of four runs each.
  CHECK(rs.exhausted);
  CHECK(rs.runs == static_cast<int>(c.datasets.size()) * 5);
  CHECK(c.total(rs.best) == Approx(c.optimum().total));
  SearchTrace hc = hill_climb(c.forest, r2, 10000, 5);
  CHECK(c.total(hc.best) == Approx(c.optimum().total));
  CHECK(hc.runs <= rs.runs);
}
