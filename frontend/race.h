// Race freedom of extracted CUDA kernels (docs/extract.md). For every write
// of a thread t and every access of the same array by a different thread t' that may
// run concurrently (another block: any access to global memory; the same block: an
// access in the same barrier interval), the prover must show that t's set of elements
// (its loops aggregated with EXPAND) and the union of the other threads' sets are
// disjoint under the launch facts. "Different thread" is split into ranges the prover
// handles: t' below or above t in the first built-in dimension where they differ, the
// earlier dimensions equal, the later ones free. An overlap or unknown answer is then
// searched for a concrete race on small launches (two threads, an address, confirmed by
// evaluating both index expressions); only a confirmed one is reported as `race`.
#pragma once

#include "analysis/prover.h"
#include "frontend/extract.h"
#include "frontend/model/gpuverify_header.h"

#include <optional>
#include <string>
#include <vector>

namespace funmem::frontend {

enum class Verdict { RaceFree, Race, Unknown, Unsupported };
const char* verdict_name(Verdict v);

struct RaceWitness {
  std::string array;
  int64_t address = 0;                   // in the object's unit
  int64_t unit = 1;                      // bytes per unit
  std::string first, second;             // `block (0,0,0) thread (1,0,0) writes a[3] at 5:7`
  std::map<std::string, int64_t> launch; // the launch and scalar values
};

struct QuestionResult {
  std::string what; // e.g. `write a[i] at 4:5 vs read a[i+1] at 4:12, other block below`
  std::string l1, l2;
  ProveResult result;
  double ms = 0; // spent on the question, over every attempt (result.ms: the last one)
};

struct KernelVerdict {
  std::string kernel;
  Pos pos;
  Verdict verdict = Verdict::Unknown;
  std::string reason;
  std::vector<QuestionResult> questions;
  std::optional<RaceWitness> witness;
  double ms = 0;      // wall-clock time (for reports: no verdict depends on it)
  double work_ms = 0; // the Z3 work spent, in ms of budget (Solver::kWorkPerMs units each)
  int wall_guard = 0; // solver checks stopped by the wall-clock guard (0 in every test)
  /// The kernel's assertions: `holds` (proved under the launch facts, preconditions,
  /// guards and loop bounds), `may fail` (not proved) or `not checked` (GPUVerify
  /// predicates in it, or not a formula). Never trusted as facts.
  std::vector<std::pair<Assertion, std::string>> assertions;
  /// The wrap_key of every wrap C defines that the checker did not prove absent (each
  /// leaves the verdict unknown; ExtractOptions::modular models them exactly).
  std::vector<std::string> open_wraps;
  /// The wrap_key of every loop summary's obligation not proved (each leaves the verdict
  /// unknown; named in ExtractOptions::modular, its loop is not summarised).
  std::vector<std::string> open_obligations;
};

struct RaceOptions {
  std::vector<Formula> facts; // launch facts (--assume, GPUVerify header), as parsed
  ProverOptions prover;
  int search_limit = 200000; // thread pairs and iterations tried by the witness search
  /// A budget for the kernel's questions, in ms of solver work (Z3's resource count,
  /// Solver::kWorkPerMs units per ms: the same on an idle and a loaded machine; 0: none):
  /// when it is spent, the questions not asked yet leave the verdict `unknown` (never
  /// `race-free`); the witness search (counted in steps, `search_limit`) still runs.
  unsigned budget_ms = 10000;
  /// Two writes of the same value (a constant, or one expression of names every thread
  /// has alike) to one address are no race, as under GPUVerify's
  /// `--equality-abstraction`. Off by default: plain CUDA says they race.
  bool equal_writes = false;
  /// Threads of one warp of this many (0: none) run in lock-step, as under GPUVerify's
  /// `--warp-sync=N`: their accesses are ordered statement by statement (a statement's
  /// reads before its writes), so within a warp only two writes by one statement race.
  /// Off by default: CUDA since Volta makes no such promise.
  int warp_sync = 0;
  /// Only races between threads of one block are checked, as under GPUVerify's
  /// `--only-intra-group`. Off by default.
  bool only_intra_group = false;
  /// Any of the options that change CUDA's semantics (the dynamic detector runs plain
  /// CUDA, so it is not used to confirm races under them).
  bool semantics_changed() const { return equal_writes || warp_sync > 0 || only_intra_group; }
};

KernelVerdict check_kernel(const KernelSummary& k, const RaceOptions& opt);

} // namespace funmem::frontend
