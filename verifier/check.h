// Checking one FUN / FUNMEM file: parse, type-check, run every data set under the
// reference interpreters, and compare the outcome with the file's `-- expect:` lines.
// A FUNMEM program runs under the value semantics (after unmem, fig. 4.7) and the heap
// semantics (fig. 4.8); it is valid on a data set when both finish without error, the
// heap run has no data race and the results agree (def. 4.4.1). A FUN program runs
// under the value semantics and goes through the pipeline (fun-to-funmem, sc, merge,
// hoist, expand, to-imp); after every stage the program must type-check and its heap
// semantics (IMP's after to-imp) must agree with the FUN value semantics, race-free.
// Short-circuiting (`sc`) is a pipeline stage of FUN programs; a FUNMEM program not
// expected to be invalid or racy also runs after `sc`. Whatever the file expects, every
// stage must match its source on every data set: the same results element by element,
// or an error of the same kind at the same position, and no race the source does not
// have (the source: a FUN program's value semantics; a FUNMEM program's own heap run);
// a stage that differs, or a stage that fails, fails the file, named with the data set.
// `short-circuit N` holds when sc proved exactly N points (update, concat operand,
// kernel result).
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
  std::string stage;  // the pipeline stage whose output ran (fun-to-funmem, sc, ...); "" the source
  std::string inputs; // the values used, abbreviated
  std::optional<RunError> input_error; // the data set does not fit the parameters
  /// heap_error: the error of the heap semantics, or of IMP for the to-imp stage.
  std::optional<RunError> value_error, heap_error;
  std::vector<Race> races;
  std::optional<std::string> mismatch; // first differing result element
  RunStats heap_stats;
  bool heap_ran = false;
  bool valid() const;
  /// The semantics that ran the memory program: "IMP" for the to-imp stage, else "heap
  /// semantics".
  const char* memory_semantics() const { return stage == "to-imp" ? "IMP" : "heap semantics"; }
};

struct CheckReport {
  std::string file;
  Lang lang = Lang::Fun;
  bool parsed = false;
  bool typed = false;
  std::vector<Diagnostic> diagnostics;
  std::vector<ExpectResult> expectations;
  std::vector<DataSetRun> runs;
  /// The stage that failed or produced an ill-typed program, and why (empty when every
  /// stage ran). Fails the file, whatever its expectations say.
  std::string pipeline_error;
  std::vector<std::string> stages; // the pipeline's stages that produced a program
  /// Every difference of a stage from its source on a data set, as "DATA SET after
  /// STAGE: stage STAGE ...": it ends otherwise (an error of another kind or at another
  /// position, an error where the source has results, or results where it has an error),
  /// its results differ, or it has a data race the source does not have (a FUN source has
  /// none; a FUNMEM source whose own heap run has a race compares only how its stages
  /// end). The source is the FUN value semantics, or the FUNMEM program's heap run. A
  /// failed pipeline adds "the pipeline stops: " + pipeline_error. Any fails the file,
  /// whatever its expectations say.
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
  /// True when no expectation fails, no stage differs and the pipeline did not fail.
  bool ok() const;
};

/// Checks the text of one file (named `file` in messages; its extension picks the language).
CheckReport check_source(const std::string& file, const std::string& text,
                         const CheckOptions& opt = {});

/// The same for a program already parsed and type-checked (its static expectations
/// `error parse` / `error type` fail).
CheckReport check_program(const std::string& file, const Program& p, const CheckOptions& opt = {});

} // namespace funmem
