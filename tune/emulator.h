// A seeded emulator of multi-versioned programs (docs/tuning.md): tuning
// forests whose versions have cost models, run on data sets that are lists of kernel
// launches. A run walks each launch down its tree (logging every comparison, as the
// generated code does), adds the chosen versions' costs, and adds noise; a version
// that does not fit (out of memory) makes the run fail, a run longer than the time-out
// times out. Brute-force enumeration over the configurations that matter gives the
// optimum and checks the monotonicity assumption, so the tuner and the baselines can
// be judged on hundreds of seeds in milliseconds.
//
// Example: EmuCase c = emulator_case("mapscan", 7); EmuRunner r(c, 7);
// tune_program(c.forest, r) returns the intervals; c.optimum() the best total time.
#pragma once

#include "tune/tuner.h"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace funmem::tune {

/// One kernel launch: the sizes its versions' costs and P values depend on.
struct EmuLaunch {
  int tree = 0;                // which tree of the forest
  std::vector<double> sizes;   // the tree's cost model reads these
  std::vector<int64_t> p;      // P per threshold of the tree (top first)
  std::vector<bool> reachable; // per threshold: compared at all (e.g. intra fits)
};

/// A chain `if P_0 >= T_0 then V_0 else if P_1 >= T_1 then V_1 ... else V_k`.
struct EmuTree {
  std::vector<int> thresholds; // indices into the forest, top first
  /// Cost of version v (0..k) on a launch; infinity: the version runs out of memory.
  std::function<double(int v, const EmuLaunch&)> cost;
};

struct EmuDataset {
  std::string name;
  std::vector<EmuLaunch> launches;
};

struct EmuCase {
  std::string name;
  bool size_variant = false;
  Forest forest;
  std::vector<EmuTree> trees;
  std::vector<EmuDataset> datasets;
  double noise = 0.0;       // relative standard deviation of a run's time
  double timeout_ms = 0.0;  // 0: none
  double overhead_ms = 0.0; // per run, outside the kernels

  /// The version a launch runs under the thresholds (appending its comparisons).
  int choose(const EmuLaunch& l, const std::vector<int64_t>& t,
             std::map<int, std::map<int64_t, int64_t>>* log) const;
  /// Noise-free time of a data set (infinity when a version runs out of memory).
  double cost(size_t d, const std::vector<int64_t>& t) const;
  /// Noise-free total over the data sets.
  double total(const std::vector<int64_t>& t) const;
  /// Candidate values per threshold: every P seen in any data set, and infinity.
  std::vector<std::vector<int64_t>> candidates() const;

  struct Optimum {
    std::vector<int64_t> config;     // a configuration with the least total time
    double total = 0;                // its total
    std::vector<double> per_dataset; // the least time of each data set alone
    size_t configurations = 0;       // enumerated
  };
  /// By enumeration, tree by tree (the trees' costs add up independently).
  Optimum optimum() const;
  /// Whether the monotonicity assumption holds: for every threshold, a launch where the
  /// guarded version beats the best version below it is never followed (at a larger or
  /// equal P) by one where it loses. `why` names a violation.
  bool monotone(std::string* why = nullptr) const;
};

/// The cases: mapscan, lud (size-variant), locvolcalib, bfast, gemm (monotone by
/// design), and mapscan-skewed, gemm-skewed (data sets that break monotonicity).
std::vector<std::string> emulator_case_names();
EmuCase emulator_case(const std::string& name, uint64_t seed);

class EmuRunner : public Runner {
public:
  EmuRunner(const EmuCase& c, uint64_t seed) : c_(c), rng_(seed) {}
  size_t datasets() const override { return c_.datasets.size(); }
  std::string dataset_name(size_t d) const override { return c_.datasets[d].name; }
  RunResult run(size_t d, const std::vector<int64_t>& thresholds) override;
  int runs = 0;

private:
  const EmuCase& c_;
  std::mt19937_64 rng_;
};

} // namespace funmem::tune
