// The compilation pipeline (thesis 4.5-4.7, 5, 6): one table of stages and one function
// that runs a list of them. funmem-check, funmem-opt, funmem-cuda, funmem-tune, the
// fuzzer and the benchmarks all run their passes through `run_pipeline`.
//
//   fun-to-funmem  FUN -> FUNMEM: explicit allocations and copies (4.5)
//   sc             short-circuiting: build arrays in the memory they are copied to (6)
//   merge          memory block merging (5)
//   hoist          allocations moved up (4.6)
//   expand         allocations taken out of kernels, interleaved GPU layout (4.6)
//   expand-cpu     the same, per-thread CPU layout
//   to-imp         FUNMEM -> IMP (4.7); always the last stage
//
// Every FUN/FUNMEM stage's result is type-checked (unless it equals its input); a
// stage that fails, or an internal error in one (an exception), ends the run with a
// diagnostic `stage NAME: why` and the stages before it kept.
#pragma once

#include "analysis/expand.h"
#include "analysis/merge.h"
#include "analysis/short_circuit.h"
#include "analysis/to_imp.h"
#include "ir/ast.h"
#include "ir/imp.h"

#include <optional>
#include <string>
#include <vector>

namespace funmem {

enum class Stage { FunToFunmem, Sc, Merge, Hoist, Expand, ExpandCpu, ToImp };

struct StageInfo {
  Stage stage;
  const char* name;    // as on the command line: fun-to-funmem, sc, ...
  Lang input;          // the language the stage reads
  const char* summary; // one line for --help
};

/// Every stage, in pipeline order.
const std::vector<StageInfo>& stage_table();
const StageInfo& stage_info(Stage s);
const char* stage_name(Stage s);
std::optional<Stage> stage_from_name(const std::string& name);
/// "fun-to-funmem, sc, ..., to-imp", for messages.
std::string stage_names_text();

/// The options of the passes, including the deliberately broken variants the fuzzer's
/// tests switch on to show that the checks find the bugs they cause.
struct PassOptions {
  ScOptions sc;       // sc (with its prover's options)
  MergeOptions merge; // merge
};

/// The names of the deliberately broken variants: sc-no-overlap, merge-no-interference,
/// sosi-no-cross, sc-late-facts.
const std::vector<std::string>& broken_variant_names();
/// Switches on the broken variant `name`; false for a name that is not one.
bool set_broken_variant(PassOptions& opt, const std::string& name);
/// The broken variants switched on, as `--broken NAME` words (empty when none).
std::string broken_variants_text(const PassOptions& opt);

/// The standard stage list for a program in `lang`: fun-to-funmem (FUN only), sc (when
/// `sc`), merge, hoist, expand, then to-imp (when `to_imp`).
std::vector<Stage> standard_stages(Lang lang, bool sc = true, bool to_imp = true);

struct PipelineOptions {
  std::vector<Stage> stages; // run in this order; to-imp only last
  PassOptions pass;
  /// Type-check every stage's result (one equal to its input is not checked again).
  bool verify = true;
  /// The input has been type-checked (a first stage that changes nothing is then not
  /// checked either).
  bool input_typed = true;
};

struct StageResult {
  Stage stage = Stage::FunToFunmem;
  std::optional<Program> program;  // the result of a FUN/FUNMEM stage
  std::optional<imp::Program> imp; // the result of to-imp
  bool unchanged = false;          // the result equals the stage's input
  std::string report;              // what the stage did, for people (may span lines)
  std::optional<ScReport> sc;      // sc's attempts
  ToImpReport imp_report;          // to-imp's counts and write origins
};

struct PipelineResult {
  std::vector<StageResult> stages; // the stages that succeeded, in order
  std::string error;               // `stage NAME: why` when one failed, else empty
  std::optional<Stage> failed;     // the stage that failed

  bool ok() const { return error.empty(); }
  /// The last FUN/FUNMEM program: the last stage's (before to-imp), else the input.
  const Program& last_program(const Program& input) const;
  /// sc's report when sc ran (even when a later stage failed).
  const ScReport* sc_report() const;
};

/// Runs `opt.stages` on `p` in order, each on the result of the one before.
PipelineResult run_pipeline(const Program& p, const PipelineOptions& opt);

} // namespace funmem
