// Soundness and completeness checks of the non-overlap prover against brute-force
// enumeration on random small LMAD pairs (negative, zero and self-overlapping strides,
// zero counts, symbolic components). Used by the tests and by funmem-fuzz --mode lmads.
#pragma once

#include "analysis/prover.h"

#include <cstdint>
#include <string>
#include <vector>

namespace funmem {

struct LmadQuestion {
  SymLmad l1, l2;
  std::vector<Formula> facts;
  /// The assignments under which the brute force enumerates (every assignment of the
  /// free names within the fact bounds).
  std::vector<Env> assignments;
  std::string to_string() const; // `LMAD1 ; LMAD2 ; FACT, ...` (the batch syntax)
};

/// A random concrete pair (rank 0..3, counts -1..4, strides -6..6).
LmadQuestion random_concrete_question(uint64_t seed);
/// A random symbolic pair over n and m, each bounded by facts to a small range, plus
/// sometimes an extra relational fact.
LmadQuestion random_symbolic_question(uint64_t seed);

/// Brute force: does some assignment of the question give a shared point?
bool brute_force_overlap(const LmadQuestion& q);

struct SoundnessReport {
  int questions = 0;
  int disjoint = 0, overlap = 0, unknown = 0;
  int brute_overlaps = 0;
  std::vector<std::string> failures; // each names the question and what was wrong
};

/// Runs the prover on each question and checks: no `disjoint` where the brute force
/// finds a shared point; every `overlap` witness satisfies the facts, lies in both
/// domains and maps to one point; with `require_decided`, no `unknown`.
void check_answer(const LmadQuestion& q, const ProveResult& r, bool require_decided,
                  SoundnessReport& rep);

} // namespace funmem

namespace funmem {

/// Question SEED of `funmem-fuzz --mode lmads`: concrete for even seeds, symbolic for
/// odd ones.
LmadQuestion lmad_fuzz_question(uint64_t seed);

struct LmadFuzzOutcome {
  bool ok = true;
  std::string detail; // the failures, one per line
  int checks = 0;     // prover configurations whose answer checked
};

/// Answers the question with the full prover, with the SOSI procedure alone and (concrete
/// questions) with Z3 alone, and checks each answer against enumeration. Concrete
/// questions must be decided by the full prover and by Z3 alone. The configurations
/// start from `prover` (which may switch on the broken SOSI step) with short timeouts.
LmadFuzzOutcome fuzz_lmad(const LmadQuestion& q, const ProverOptions& prover = {});

/// Reduces a failing question while it still fails: drops dimensions, lowers counts,
/// strides and offsets towards zero, drops facts that are not bounds.
LmadQuestion shrink_lmad(const LmadQuestion& q, int* steps = nullptr,
                         const ProverOptions& prover = {});

/// The question as a corpus/prove entry: `# expect: overlap|disjoint` (by enumeration)
/// and its batch line.
std::string prove_corpus_entry(const LmadQuestion& q);

} // namespace funmem
