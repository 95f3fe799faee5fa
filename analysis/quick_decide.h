// Decisions about a conjunction of facts without Z3: cheap, sound and incomplete. The
// Solver (solver.h) asks these first and Z3 only when they do not decide.
//
//   implied_by_bounds(goal)  facts |- goal shown by sign alone: with every name replaced
//                            by its lower bound plus a new name >= 0 (constant bounds
//                            `i >= 1`, or bounds by other names `b > t`), goal's
//                            polynomial has no negative coefficient. `false` means "not
//                            shown", never "does not follow".
//   refuted_at(goal, models) goal is false at one of the given models of the facts: it
//                            does not follow from them (a counterexample checked by
//                            evaluation).
//   search_models()          models of the facts from a small search.
// MLIR's Presburger library draws the same line between `isObviouslyEmpty` and
// `isIntegerEmpty`.
#pragma once

#include "analysis/formula.h"
#include "analysis/solver.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace funmem {

/// A formula equivalent to !f without a negation at its top, where one is at hand.
std::optional<Formula> complement(const Formula& f);
/// Whether `goal` evaluates to false at one of `models` (names they lack take 0).
bool false_at_one_of(const Formula& goal, const std::vector<Env>& models);
/// The first of `models` (each satisfies the facts) at which every formula of `extra`
/// holds, names the model lacks taking 0.
std::optional<Env> satisfying(const std::vector<Env>& models, const std::vector<Formula>& extra);

class QuickDecider {
public:
  /// `facts` and `stats` must outlive the decider; the counts of the bounds procedure
  /// (split, definitions, atom_bounds) are added to `stats`.
  QuickDecider(const std::vector<Formula>& facts, SolverStats& stats)
      : facts_(facts), stats_(stats) {}

  /// facts |- goal by sign alone (see the top of this file).
  bool implied_by_bounds(const Formula& goal) { return by_bounds(goal, lower_bounds(), 0); }
  /// Whether `goal` is false at one of search_models() (names only the goal mentions
  /// take 0).
  bool refuted_by_search(const Formula& goal) { return false_at_one_of(goal, search_models()); }
  /// The names of the facts, sorted.
  std::vector<std::string> fact_vars() const;
  /// A model of the facts by a small search over 0..3 (names defined by an equation of
  /// the facts computed); nullopt when none is found.
  std::optional<Env> small_model() const;
  /// Models of the facts from a small search through lower_definitions(); computed once.
  const std::vector<Env>& search_models();

private:
  std::vector<const Formula*> comparisons() const;
  const std::map<std::string, Poly>& lower_bounds();
  static std::optional<std::pair<std::string, int64_t>> bound_of(const Formula& f);
  const std::map<std::string, Poly>& lower_definitions();
  bool by_bounds(const Formula& goal, const std::map<std::string, Poly>& sh, int splits);
  bool nonnegative_under(const Poly& p, const std::map<std::string, Poly>& sh);
  static bool above_bounds(const Poly& q, int depth);
  static bool no_negative_term(const Poly& q);
  static constexpr int kAtomBoundDepth = 3;

  const std::vector<Formula>& facts_;
  SolverStats& stats_;
  std::optional<std::map<std::string, Poly>> shift_; // name -> name + its lower bound
  std::optional<std::map<std::string, Poly>> defs_;  // see lower_definitions()
  std::optional<std::vector<Env>> search_models_;    // see search_models()
};

} // namespace funmem
