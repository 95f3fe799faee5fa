// The dynamic race detector (funmem-race-run; docs/extract.md): the ground truth the
// static verdicts of funmem-extract are checked against. A mechanism independent of
// the extractor's access model: Clang's Rewriter wraps every load and store of memory
// in the source (`(*::fmr::rd(&(a[i]), line, col))`), a generated host harness
// allocates the pointer arguments and launches every kernel on the CPU emulation of
// funmem_race_rt.h (each thread of a block a real thread, `__syncthreads()` a real
// barrier), and the recorded accesses are searched for two threads that touch the same
// byte concurrently, one of them writing.
//
// Example: `__global__ void k(int* a) { a[threadIdx.x / 2] = 1; }` at blockDim 4 gives
// `race a 0 block (0,0,0) thread (0,0,0) writes 4 byte(s) at 1:36 ... thread (1,0,0)`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace funmem::frontend {

/// A launch: block and grid sizes, scalar arguments by name (the others default to the
/// number of threads in x), and the element count of every pointer argument's buffer
/// (0: threads^2 + 64, at most 2^22; one argument's as `args["@name"]`); `args["@@fill"]
/// = 0` fills the buffers with zeros instead of distinct values.
struct Launch {
  int64_t block[3] = {4, 1, 1}, grid[3] = {2, 1, 1};
  std::map<std::string, int64_t> args;
  int64_t elements = 0;
};

/// One run of the instrumented program: the mutants switched on (mutant schemata; -1
/// for none) and the launch.
struct RaceJob {
  long mutant = -1, mutant2 = -1;
  Launch launch;
};

struct ObservedRace {
  std::string object; // the parameter or variable
  int64_t byte = 0;   // byte offset into it
  std::string first, second;
};

struct JobResult {
  std::string kernel;
  std::vector<ObservedRace> races;
  std::vector<std::string> errors; // out-of-bounds accesses, a run that did not finish
  bool finished = false;
};

/// The instrumented program: its source (with harness) or why it cannot be built.
/// The values an integer place that `--arg` sets can hold: its type's (a `bool` 0 and
/// 1, a bit-field its width's, an enumeration without a fixed type its enumerators').
struct ScalarRange {
  std::string kernel, path, type;
  int64_t lo = 0, hi = 0; // `hi` is at most 2^63 - 1 (an --arg value is an int64_t)
};

struct Instrumented {
  std::string source;
  std::vector<std::string> errors; // `file:line:col: error: ...`
  std::vector<std::string> kernels;
  /// The names a launch may give values: scalar parameters and members (`n`, `q.n`), and
  /// pointers as `@` and their path (`@out`, `@q.in`): `--arg` and `--size` take these.
  std::vector<std::string> names;
  std::vector<ScalarRange> ranges; // of the scalar names, per kernel
  std::string host_args;           // g++'s arguments for the clang arguments
};

/// Instruments `code` (named `file`; CUDA device code as funmem-extract reads it).
Instrumented instrument(const std::string& code, const std::string& file,
                        const std::vector<std::string>& clang_args = {});

/// A run's budget: the accesses and barrier passes it may make (all kernels of a job
/// together); a run past it did not finish, on every machine alike.
inline constexpr uint64_t kRunWork = 20'000'000;
/// A guard against a run that loops without touching memory (no work counted): seconds
/// of the run's CPU time (ten times as many of wall-clock time against threads that
/// wait forever). Only a hang reaches it.
inline constexpr int kHangSeconds = 60;

/// A compiled detector for one source: build once, run many jobs.
class RaceDetector {
public:
  /// Instruments and compiles into `work_dir` (created). errors() says why it failed.
  RaceDetector(const std::string& code, const std::string& file, const std::string& work_dir,
               const std::vector<std::string>& clang_args = {});
  const std::vector<std::string>& errors() const { return errors_; }
  const std::vector<std::string>& kernels() const { return kernels_; }
  /// See Instrumented::names.
  const std::vector<std::string>& names() const { return names_; }
  /// See Instrumented::ranges.
  const std::vector<ScalarRange>& ranges() const { return ranges_; }
  double compile_seconds() const { return compile_seconds_; }
  /// Runs the jobs in one process (restarted after a job that did not finish: past its
  /// `work` or, looping without touching memory, its `seconds`); per job, one result per
  /// kernel.
  std::vector<std::vector<JobResult>>
  run(const std::vector<RaceJob>& jobs, int seconds = kHangSeconds, uint64_t work = kRunWork) const;

private:
  std::string work_dir_, binary_;
  std::vector<std::string> errors_, kernels_, names_;
  std::vector<ScalarRange> ranges_;
  double compile_seconds_ = 0;
};

/// The text of funmem_race_rt.h.
const char* race_runtime_header();

} // namespace funmem::frontend
