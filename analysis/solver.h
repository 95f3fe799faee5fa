// The one interface to Z3 (design: "nothing else calls Z3"). A Solver holds the facts of
// a question; `proves(goal)` is true only when Z3 shows facts && !goal unsatisfiable
// within the per-query timeout. Z3's `unknown` and time-outs are never read as proof.
// Example: Solver({b > 1}).proves(b*b > b) == true.
#pragma once

#include "analysis/formula.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace funmem {

enum class SatResult { Sat, Unsat, Unknown };

struct SolverStats {
  int queries = 0;      // proves() calls
  int cache_hits = 0;   // answered from the cache
  int trivial = 0;      // decided without Z3 (constant comparisons)
  int bounds = 0;       // proved without Z3 from the names' lower bounds (see proves())
  int definitions = 0;  // of `bounds`, those that needed lower_definitions (names bounded by names)
  int split = 0;        // disjunctions proved by the bounds after a split on a disjunct
  int atom_bounds = 0;  // of `bounds`, those that needed an upper bound of a /, % or min
  int cases = 0;        // of `bounds`, those proved by cases on the goal's min, max and abs
  int settled = 0;      // check(): min, max and abs atoms whose case the bounds decide
  int refuted = 0;      // disproved without Z3: false at a known model of the facts
  int searched = 0;     // of `refuted`, those whose counterexample the small search found
  int sat_by_model = 0; // check(): satisfiable at a known model of the facts
  int unsat_by_bounds = 0; // check(): an extra formula refuted by the lower bounds
  int z3_calls = 0;        // checks sent to Z3
  int z3_unknown = 0;      // unknown or timed out
  int wall_guard = 0;      // core checks stopped by the wall-clock guard (tests keep it 0)
  uint64_t z3_work = 0;    // Z3's resource count spent (Solver::kWorkPerMs per ms of budget)
  double z3_ms = 0;        // time inside Z3 (for reports: no answer depends on it)
};

class Solver {
public:
  /// A budget of N ms is N * kWorkPerMs units of Z3's resource count (`rlimit`), about
  /// N ms of work on the machine of docs/prover.md, the same on a loaded one.
  static constexpr uint64_t kWorkPerMs = 2000;
  /// The Z3 work done on this thread so far, in resource units (every Solver's checks):
  /// budgets that span many questions (a kernel's) count it.
  static uint64_t thread_work();
  /// The core checks stopped by the wall-clock guard on this thread so far.
  static int thread_wall_guards();
  /// timeout_ms == 0 means no timeout.
  explicit Solver(std::vector<Formula> facts, unsigned timeout_ms = 1000);
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  const std::vector<Formula>& facts() const;
  /// facts |- goal. Decided without Z3 when the goal is constant, when it follows by
  /// sign alone from the names' lower bounds (constants, or other names: `b > t`, `nb >
  /// i + 1` substituted as b = t + 1 + s with s >= 0), or when it is false at a known
  /// model of the facts or at one of a small search; otherwise by Z3.
  bool proves(const Formula& goal);
  /// Satisfiability of facts && extra; on Sat, `model` (when given) receives the values
  /// of `vars`, checked to satisfy facts && extra by evaluation (a model that fails the
  /// check turns the answer into Unknown).
  SatResult check(const std::vector<Formula>& extra, const std::vector<std::string>& vars,
                  Env* model, unsigned timeout_ms);
  const SolverStats& stats() const;
  /// Z3's incremental core only, without the tactic (nlsat) it hands a nonlinear problem
  /// to: for questions whose failure costs a remark, not a verdict (a nonlinear problem
  /// then gets kCoreNonlinearMs of work).
  void core_only();
  /// Solvers with equal facts share answers through a per-thread cache; benchmarks
  /// clear it between repetitions so that every repetition does the work.
  static void clear_shared_cache();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace funmem
