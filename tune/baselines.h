// Black-box baselines for the tuner (docs/tuning.md): a random search over
// threshold configurations that skips configurations choosing the same versions as one
// already run (OpenTuner's memoisation), and a hill climber with random restarts. Both
// learn the values each threshold is compared with from one run per data set with every
// threshold infinite, and score a configuration by the summed time of all data sets
// (a failed or timed-out run scores infinity).
#pragma once

#include "tune/tuner.h"

#include <cstdint>
#include <vector>

namespace funmem::tune {

struct SearchTrace {
  /// (runs so far, configuration) each time the best configuration found changes.
  std::vector<std::pair<int, std::vector<int64_t>>> incumbents;
  std::vector<int64_t> best; // the last incumbent
  int runs = 0;
  bool exhausted = false; // every distinct configuration was run
};

SearchTrace random_search(const Forest& f, Runner& r, int budget_runs, uint64_t seed);
SearchTrace hill_climb(const Forest& f, Runner& r, int budget_runs, uint64_t seed);

} // namespace funmem::tune
