// Differential testing of funmem-extract's static verdicts against the dynamic race
// detector (docs/extract.md, "Differential campaign"). A kernel is mutated (an index
// off by one, threadIdx for blockIdx, a barrier removed, a guard dropped, a store
// added, a call of a writing device function added; one or two mutations at a time).
// Each mutant's source goes to the static checker; all mutants of a kernel are
// compiled once into one detector (mutant schemata: every mutation behind a
// `fm_mutant(k)` switch) and picked at run time. A static `race-free` while the
// detector observes a race is a soundness failure; a static `race` must come with a
// witness whose launch makes the detector observe a race.
#pragma once

#include "frontend/check.h"
#include "frontend/dynamic/confirm.h"
#include "frontend/dynamic/race_run.h"
#include "frontend/extract.h"
#include "frontend/race.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace funmem::frontend {

/// One edit of a mutation: replace [begin, end) of the source.
struct Edit {
  size_t begin = 0, end = 0;
  std::string plain;  // the mutated text
  std::string schema; // the text with the mutation behind `fm_mutant(ID)` (ID: "@ID@")
  bool once = false;  // a definition: written once in the schema however many use it
};
struct Mutation {
  std::string what; // e.g. `index a[i] at 4:5 off by one`
  std::vector<Edit> edits;
};

/// The mutations of every kernel in `code` (none when it does not parse).
std::vector<Mutation> mutations(const std::string& code, const std::string& file);
/// The source with the mutations `on` applied (plain).
std::string apply_mutants(const std::string& code, const std::vector<Mutation>& ms,
                          const std::vector<size_t>& on);
/// The source with every mutation behind its switch (mutant schemata).
std::string schema_source(const std::string& code, const std::vector<Mutation>& ms);

/// The options of the race-mutation campaign (funmem-race-fuzz). The pass-fuzzing
/// campaign of funmem-fuzz has its own, `funmem::CampaignOptions` (verifier/campaign.h):
/// the two share no option.
struct RaceCampaignOptions {
  int pairs_per_kernel = 0; // second-order mutants per kernel (0: none)
  uint64_t seed = 1;
  ExtractOptions extract;    // a broken variant, for the tests
  int seconds = 60;          // per dynamic run: a hang guard (its budget counts work)
  unsigned timeout_ms = 250; // the prover's budget per side condition (an unknown is fine)
  int search_limit = 20000;  // the witness search's budget
  unsigned budget_ms = 2000; // per kernel: the questions not asked by then leave `unknown`
  std::string work_dir;
  std::string regress_dir; // shrunk failures are written here (empty: not written)
  std::function<void(const std::string&)> progress;
};

struct Failure {
  std::string file, what, source; // the mutant and its (shrunk) source
  std::string kind;               // `soundness` or `unconfirmed witness`
  std::string detail;
};

struct RaceCampaignResult {
  int kernels = 0, mutants = 0, static_race_free = 0, static_race = 0, dynamic_races = 0;
  int skipped = 0; // mutants the detector could not run (did not finish)
  std::vector<Failure> failures;
  double seconds = 0, compile_seconds = 0, static_seconds = 0, dynamic_seconds = 0;
};

/// The static checker's options of a campaign: its budgets and broken variant, plain
/// CUDA semantics (the detector runs no GPUVerify header), no dynamic confirmation.
CheckOptions campaign_check_options(const RaceCampaignOptions& opt);
/// The result of `kernel` in job `job` of a detector's run (none: it did not run).
const JobResult* result_for(const std::vector<std::vector<JobResult>>& rs, size_t job,
                            const std::string& kernel);

/// Runs every first-order mutant (and `pairs_per_kernel` random pairs) of one file.
RaceCampaignResult campaign_file(const std::string& code, const std::string& file,
                                 const RaceCampaignOptions& opt);

/// Shrinks a failing mutant's source: statements of its kernels are deleted (each
/// replaced by `;`, last first, one pass per parse until a pass deletes nothing) while
/// `fails` still holds. Returns the smallest source found.
std::string shrink_kernel_source(const std::string& code,
                                 const std::function<bool(const std::string&)>& fails);

} // namespace funmem::frontend
