// The monotonic autotuner (docs/tuning.md; seed
// autotuning-monotonic-thresholds.txt, thesis ch. 7). A multi-versioned program has a
// forest of tuning trees: each threshold T guards `if P >= T then V else (subtree)`.
// Under the monotonicity assumption (a version found faster than its subtree at P stays
// faster for larger P) the tuner finds, per data set and bottom-up over the forest, the
// maximal interval of each threshold that picks the fastest versions, with one run per
// size-invariant threshold and O(log m) runs for one that sees m distinct values of P
// (procs. 7.1-7.4, with the thesis' interval formula of proc. 7.3 line 25 corrected:
// T = x_j chooses V for every P >= x_j, so its maximal interval is [x_{j-1} + 1, x_j]).
// The intervals of all data sets are intersected; an empty intersection is reported
// with the data sets that conflict.
//
// Example: Forest f = {{"t0", -1, 32768}}; tune_program(f, runner, {}) runs each data
// set with t0 = inf, then with t0 = P (the value the first run logged) and returns
// t0's interval, e.g. [0, 1000] when the guarded version was faster at P = 1000.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace funmem::tune {

constexpr int64_t kInf = INT64_MAX;

/// "inf" or the number.
std::string threshold_text(int64_t v);

struct Threshold {
  std::string name;
  int parent = -1; // the threshold on whose false side this one is (-1: a root)
  int64_t default_value = 0;
  std::string info; // what the branch chooses (for reports)
};

/// Thresholds in depth-first order (a parent before its subtree).
struct Forest {
  std::vector<Threshold> thresholds;
  int index(const std::string& name) const; // -1 when absent
  /// An error when the order is not depth-first or a parent is unknown, else "".
  std::string validate() const;
};

/// Parses the `--tuning-tree` output of a generated program (funmem_cuda_rt.h).
Forest parse_tuning_tree(const std::string& text, std::string* error);

struct RunResult {
  enum class Status { Ok, Failed, Timeout };
  Status status = Status::Ok;
  double ms = 0;     // the program's time (Ok)
  std::string error; // why it failed
  /// The comparisons the run made: threshold index -> P -> count.
  std::map<int, std::map<int64_t, int64_t>> comparisons;
};

/// Runs the program on one data set with the given threshold values (indexed as the
/// forest). Implementations: a generated program (program_runner.h), the emulator.
class Runner {
public:
  virtual ~Runner() = default;
  virtual size_t datasets() const = 0;
  virtual std::string dataset_name(size_t d) const = 0;
  virtual RunResult run(size_t d, const std::vector<int64_t>& thresholds) = 0;
};

struct Interval {
  int64_t lb = 0, ub = kInf; // inclusive
  bool empty() const { return lb > ub; }
  Interval meet(const Interval& o) const;
  bool contains(int64_t v) const { return lb <= v && v <= ub; }
  std::string text() const;
  friend bool operator==(const Interval&, const Interval&) = default;
};

struct TuneOptions {
  int repeats = 1;        // timings per configuration; the minimum is taken
  double epsilon = 0.0;   // a version must be faster by this fraction to be chosen
  double tolerance = 0.1; // slack of the monotonicity checks (relative)
  /// Called after every program run (progress display): data set, runs so far.
  std::function<void(const std::string& what)> progress;
};

struct ThresholdTrace {
  std::vector<int64_t> values;                   // the distinct P of this data set, sorted
  std::vector<std::pair<int64_t, double>> tried; // T -> measured time (inf: failed)
  Interval interval;
  int runs = 0;
};

struct DatasetReport {
  std::string name;
  double baseline_ms = 0; // every threshold infinite (the bottom versions)
  double best_ms = 0;
  int runs = 0;       // program runs (each repeat counts)
  double time_ms = 0; // time spent in the runs
  std::vector<ThresholdTrace> thresholds;
  std::vector<int64_t> chosen; // the threshold values this data set ends with
};

struct Conflict {
  int threshold;
  std::vector<std::pair<std::string, Interval>> wants; // data set -> its interval
};

struct TuneResult {
  std::vector<Interval> intervals; // intersected over the data sets
  std::vector<int64_t> values;     // one value per threshold (docs/tuning.md)
  std::vector<DatasetReport> datasets;
  std::vector<Conflict> conflicts;   // thresholds whose intersection is empty
  std::vector<std::string> warnings; // monotonicity violations seen
  std::vector<std::string> notes;    // failed baselines and the like
  int runs = 0;
  double time_ms = 0;
  bool optimal() const { return conflicts.empty() && warnings.empty(); }
};

/// TUNEPROGRAM over every data set of `runner`.
TuneResult tune_program(const Forest& f, Runner& runner, const TuneOptions& opt = {});

/// The value written for an interval: the default clamped into it.
int64_t pick_value(const Interval& i, int64_t default_value);

/// `name=value` lines (with the intervals and conflicts as comments).
std::string tuning_file(const Forest& f, const TuneResult& r);
/// A readable report: per data set the versions chosen, runs and time spent.
std::string tuning_report(const Forest& f, const TuneResult& r);

} // namespace funmem::tune
