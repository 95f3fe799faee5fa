// What a set of integer facts decides without Z3: interval arithmetic over the bounds
// the facts give monomials (`b*b*q*q <= 2^28`, `q > 1`), a name's linear bounds put in
// its place (`s < q - 1` in `q - s - 1 >= 0`), and refutation at a fixed set of
// assignments with large and small values. PointFacts asks these before the solver.
// Example: FactBounds({q > 1, b > 1, b*b*q*q <= 400, s >= 0, s < q - 1})
//   .implies(b*b*q - b*b*s - b*b > 0) is true.
#pragma once

#include "analysis/formula.h"

#include <memory>
#include <optional>
#include <vector>

namespace funmem {

class FactBounds {
public:
  explicit FactBounds(std::vector<Formula> facts);
  /// The facts' bounds show `goal` true wherever the facts hold (false: not shown, also
  /// when a coefficient would leave 64 bits).
  bool implies(const Formula& goal) const;
  /// `goal` is false at an assignment where every fact holds, among a fixed set in which
  /// each name takes 0, 1, 2, 2^20, 2^31, 2^32 + 3, -1, -2^32 - 3, its upper bound from
  /// the facts and half of it (names an equation of the facts defines are computed from
  /// the others).
  bool refuted_at_large_values(const Formula& goal) const;

private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

namespace detail {

__extension__ typedef __int128 Wide; // NOLINT(modernize-use-using): __extension__ needs it

/// A polynomial's value in 128-bit arithmetic (names, max, min, abs, truncating / and %);
/// nullopt for a name `env` lacks, a zero divisor, or a value beyond 2^120. Exact where it
/// answers.
std::optional<Wide> wide_eval(const Poly& p, const Env& env, int depth = 0);
/// A formula's truth in 128-bit arithmetic; nullopt when a term cannot be evaluated.
std::optional<bool> wide_holds(const Formula& f, const Env& env);
/// Stronger goals without max / min, each of which implies `goal`: in `d >= 0`, a term
/// `c * max(x, y)` with c > 0 replaced by `c * x` or `c * y` (and `c * min(x, y)` with
/// c < 0 alike), up to two such terms; for a disjunction, those of each disjunct.
std::vector<Formula> lowered(const Formula& goal, int depth = 0);

} // namespace detail

} // namespace funmem
