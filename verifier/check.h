// Checking one FUN / FUNMEM file: parse, type-check, run every data set under the
// reference interpreters, and compare the outcome with the file's `-- expect:` lines.
// A FUNMEM program runs under the value semantics (after unmem, fig. 4.7) and the heap
// semantics (fig. 4.8); it is valid on a data set when both finish without error, the
// heap run has no data race and the results agree (def. 4.4.1). A FUN program runs
// under the value semantics and goes through the pipeline (fun-to-funmem, merge); after
// every stage the program must type-check and its heap semantics must agree with the FUN
// value semantics, race-free. A failing stage is named.
// Short-circuiting (`sc`) is a pipeline stage of FUN programs; a FUNMEM program expected
// to be valid also runs after `sc`. Either way the optimised program's heap semantics is
// compared with the original's value semantics on every data set, and `short-circuit N`
// holds when sc proved exactly N points (update, concat operand, kernel result).
#pragma once

#include "analysis/pipeline.h"
#include "interp/interp.h"
#include "ir/ast.h"
#include "ir/diagnostic.h"

#include <optional>
#include <string>
#include <vector>

namespace funmem {

enum class ExpectStatus { Holds, Fails, Unchecked };
const char* expect_status_name(ExpectStatus s);

struct ExpectResult {
  Expect expect;
  ExpectStatus status = ExpectStatus::Unchecked;
  std::string detail;
};

struct CheckOptions {
  std::vector<InputSet> inputs; // used instead of the file's `-- input:` lines when given
  uint64_t seed = 0;            // for array inputs not given
  Limits limits;
  PassOptions passes; // the pipeline's pass options (a broken variant, for the tests)
};

/// The outcome of one data set.
struct DataSetRun {
  std::string name;   // "input at line 12", "--input 1", "random inputs"
  std::string stage;  // FUN input: the pipeline stage whose output ran (fun-to-funmem, merge)
  std::string inputs; // the values used, abbreviated
  std::optional<RunError> input_error; // the data set does not fit the parameters
  std::optional<RunError> value_error, heap_error;
  std::vector<Race> races;
  std::optional<std::string> mismatch; // first differing result element
  RunStats heap_stats;
  bool heap_ran = false;
  bool valid() const;
};

struct CheckReport {
  std::string file;
  Lang lang = Lang::Fun;
  bool parsed = false;
  bool typed = false;
  std::vector<Diagnostic> diagnostics;
  std::vector<ExpectResult> expectations;
  std::vector<DataSetRun> runs;
  /// FUN input: the stage that failed or produced an ill-typed program, and why (empty
  /// when every stage's heap semantics ran on every data set).
  std::string pipeline_error;
  std::vector<std::string> stages; // the pipeline's stages that produced a program
  /// Stages that end otherwise than the source's value semantics on a data set: an error
  /// of another kind or at another position, an error where it has none, or none where
  /// it has one. Any fails the file, whatever its expectations say.
  std::vector<std::string> stage_mismatches;
  size_t data_sets = 0;
  /// The sc stage's attempts, and per data set what it changed at run time.
  std::optional<ScReport> sc;
  struct ScImpact {
    std::string data_set;
    int64_t copied_before = 0, copied_after = 0; // elements copied by memcpy
    int64_t elided_after = 0;                    // elements whose copy was elided after sc
    int64_t peak_before = 0, peak_after = 0;     // peak heap bytes
  };
  std::vector<ScImpact> sc_impact;
  /// Wall-clock seconds: parsing, type checking and the pipeline's passes (static), and
  /// the interpreters' runs of every data set (runs).
  double static_seconds = 0, run_seconds = 0;
  /// True when no expectation fails.
  bool ok() const;
};

/// Checks the text of one file (named `file` in messages; its extension picks the language).
CheckReport check_source(const std::string& file, const std::string& text,
                         const CheckOptions& opt = {});

/// The same for a program already parsed and type-checked (its static expectations
/// `error parse` / `error type` fail).
CheckReport check_program(const std::string& file, const Program& p, const CheckOptions& opt = {});

} // namespace funmem
