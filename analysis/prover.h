// The non-overlap prover (thesis 3.6): do two symbolic LMADs, read as sets of points,
// share a point under some facts? Answers are
//   disjoint - with a proof: the SOSI steps and the interval pair that separates them
//              (or Z3's refutation of the whole membership problem, or empty sets);
//   overlap  - with a witness: an assignment satisfying the facts and a shared point,
//              both index tuples checked by evaluation before it is reported;
//   unknown  - with the reason.
// Every side condition is a query to the Solver. Concrete LMADs are decided exactly.
// Soundness of the SOSI step rests on a corrected form of lemma 3.6.1: for two zero-
// offset SOSIs over the same positive strides d_1..d_n, if for every q <= p
//   d_q > sum_{k>q} (u2_k - l1_k) d_k  and  d_q > sum_{k>q} (u1_k - l2_k) d_k
// and the intervals at p are disjoint, the SOSIs are disjoint (see docs/prover.md).
#pragma once

#include "analysis/formula.h"
#include "analysis/solver.h"
#include "ir/lmad.h"

#include <optional>
#include <string>
#include <vector>

namespace funmem {

enum class Answer { Disjoint, Overlap, Unknown };
const char* answer_name(Answer a);

struct ProverOptions {
  unsigned timeout_ms = 1000;        // per side condition
  unsigned search_timeout_ms = 2000; // the whole-membership query used to find witnesses
  int max_split_depth = 4;           // splits along one path of the SOSI search
  int max_nodes = 200;               // SOSI pairs examined per question
  int64_t enumerate_limit = 1 << 20; // index tuples enumerated per concrete LMAD
  int witness_candidates = 4000;     // assignments tried by the small-value witness search
  bool sosi = true;                  // run the SOSI procedure
  bool membership = true;            // ask Z3 the whole membership question
  bool witness_search = true;        // try small assignments when Z3 finds no model
  bool enumerate_concrete = true;    // decide small concrete pairs by enumeration first
  bool case_split = true;            // when SOSI fails: split a count name on == 1 / >= 2
  bool broken_no_cross = false;      // deliberately broken: the SOSI step skips the stride
                                     // and span (cross) conditions (analysis/pipeline.h)
};

/// A step of a SOSI proof: the pair examined, what was concluded or how it was split.
struct ProofNode {
  std::string pair;
  std::string step;
  std::vector<std::string> proved; // side conditions discharged by the solver
  std::vector<ProofNode> children; // both children must be disjoint (a split)
};

struct Witness {
  Env assignment;
  int64_t point = 0;
  std::vector<int64_t> index1, index2;
};

struct ProveResult {
  Answer answer = Answer::Unknown;
  std::string method;             // facts | empty | enumeration | sosi | z3 | witness
  std::string reason;             // why not proved (unknown), or a short conclusion
  std::vector<std::string> steps; // preparation: normalisation, SOSIs, stride order
  std::optional<ProofNode> proof;
  std::optional<Witness> witness;
  SolverStats stats;
  double ms = 0;
};

ProveResult prove_disjoint(const SymLmad& l1, const SymLmad& l2, const std::vector<Formula>& facts,
                           const ProverOptions& opt = {});
/// The same, reusing a solver (and its cache) across questions with the same facts.
ProveResult prove_disjoint(const SymLmad& l1, const SymLmad& l2, Solver& solver,
                           const ProverOptions& opt = {});

/// The baseline of the benchmark: the whole membership problem (facts, index bounds and
/// L1(i) == L2(j)) as one Z3 query. Unsat means disjoint, Sat overlap.
SatResult z3_membership(const SymLmad& l1, const SymLmad& l2, Solver& solver, unsigned timeout_ms);

/// One line: the answer followed by the proof or witness summary.
std::string summary(const ProveResult& r);
/// The proof or witness for people, several lines.
std::string explain(const ProveResult& r);

} // namespace funmem
