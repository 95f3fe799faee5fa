// Runs a generated multi-versioned program (funmem-cuda's harness, funmem_cuda_rt.h) for
// the tuner: one process per run with the thresholds in a tuning file, `--time` for the
// program's time and `--log-thresholds` for the comparisons it made. A run that exits
// with an error is a failed run; one that exceeds the time-out is killed. Every run is
// appended to a log (JSON lines); a runner given an existing log replays its runs in
// order instead of running the program again, so an interrupted tuning resumes where
// it stopped and ends exactly as an uninterrupted one given the same measurements.
//
// Example: ProgramRunner r("mapscan.cu.emu", {{"tall", "tall.in"}}, forest, 60, "log");
// r.run(0, {kInf, kInf}) runs `mapscan.cu.emu tall.in --no-output --time
// --log-thresholds --tuning TMP` and parses its stderr.
#pragma once

#include "tune/tuner.h"

#include <map>
#include <string>
#include <vector>

namespace funmem::tune {

struct ProgramDataset {
  std::string name;
  std::string input_file; // the harness's data format
};

class ProgramRunner : public Runner {
public:
  /// `log_path` empty: no log. Throws std::runtime_error on an unreadable log.
  /// `env`: as for run_generated.
  ProgramRunner(std::string exe, std::vector<ProgramDataset> datasets, const Forest& forest,
                double timeout_s, std::string log_path, std::string env = "");
  size_t datasets() const override { return datasets_.size(); }
  std::string dataset_name(size_t d) const override { return datasets_[d].name; }
  RunResult run(size_t d, const std::vector<int64_t>& thresholds) override;

  /// Runs the program once with extra harness flags (no log): its stderr and status.
  int run_raw(size_t d, const std::string& flags, std::string* err) const;

  int executed = 0, replayed = 0;

private:
  std::string exe_;
  std::vector<ProgramDataset> datasets_;
  const Forest& forest_;
  double timeout_s_;
  std::string log_path_, env_;
  using Key = std::pair<std::string, std::vector<int64_t>>;
  std::map<Key, std::vector<RunResult>> logged_;
  std::map<Key, size_t> used_;
};

/// Parses the harness's stderr after a run: `time: run X ms` and `threshold NAME P N`.
RunResult parse_run_output(const std::string& err, int status, const Forest& f);

/// Runs `exe input --no-output FLAGS`, killed after `timeout_s`: its status and stderr.
/// `env`, when not empty, is put before the command (`NAME=VALUE ...`).
int run_generated(const std::string& exe, const std::string& input, const std::string& flags,
                  double timeout_s, std::string* err, const std::string& env = "");

/// Runs a generated program with harness flags (input-aware tuning, tune/isaac.h): one
/// process per run with `--time`, every run appended to a log (JSON lines: data set,
/// flags, status, time); given an existing log, a run asked again is replayed from it
/// in order, so an interrupted session resumes where it stopped.
class FlagRunner {
public:
  /// `log_path` empty: no log. Throws std::runtime_error on an unreadable log. `env`:
  /// as for run_generated.
  FlagRunner(std::string exe, double timeout_s, std::string log_path, std::string env = "");
  /// Adds a data set (its name is the log's key): its index.
  size_t add_dataset(ProgramDataset d);
  RunResult run(size_t d, const std::string& flags);
  int executed = 0, replayed = 0;

private:
  std::string exe_;
  double timeout_s_;
  std::string log_path_, env_;
  std::vector<ProgramDataset> datasets_;
  using Key = std::pair<std::string, std::string>;
  std::map<Key, std::vector<RunResult>> logged_;
  std::map<Key, size_t> used_;
};

} // namespace funmem::tune
