// Quantifier-free facts over integer names: comparisons of polynomials combined with
// && || !. The prover's facts (`n == q*b + 1`, `b > 0`) and every side condition it
// asks the solver about are Formulas.
// Example: parse_fact("i < (n-1)/b") == Formula::cmp(i, Rel::Lt, (n-1)/b).
#pragma once

#include "ir/ast.h"
#include "ir/diagnostic.h"
#include "ir/lmad.h"
#include "ir/symbolic.h"

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace funmem {

/// Values of integer names.
using Env = std::map<std::string, int64_t>;

enum class Rel { Eq, Ne, Lt, Le, Gt, Ge };

/// The relation with its sides swapped: a r b iff b mirror(r) a (Lt <-> Gt, Le <-> Ge).
Rel mirror(Rel r);
/// The relation's negation: !(a r b) iff a complement(r) b (Lt <-> Ge, Le <-> Gt, Eq <-> Ne).
Rel complement(Rel r);

struct Formula {
  enum class Kind { True, False, Cmp, And, Or, Not };
  Kind kind = Kind::True;
  Rel rel = Rel::Eq;
  Poly lhs, rhs;
  std::vector<Formula> kids;

  static Formula cmp(Poly a, Rel r, Poly b);
  static Formula conj(std::vector<Formula> fs);
  static Formula disj(std::vector<Formula> fs);
  static Formula negate(Formula f);

  /// Truth under an assignment; nullopt (with a message) when a term cannot be evaluated.
  std::optional<bool> eval(const Env& env, std::string* error = nullptr) const;
  std::vector<std::string> free_vars() const;
  /// The formula with names replaced by polynomials in every comparison.
  Formula substitute(const std::map<std::string, Poly>& s) const;
  /// The formula with the atom `a` replaced by `by` in every comparison.
  Formula replace_atom(const AtomRef& a, const Poly& by) const;
  /// Text in the scalar-expression syntax, e.g. `n*b - b > 0`.
  std::string to_string() const;
};

/// !f with the negation pushed to the comparisons (De Morgan, complemented relations),
/// so that facts stay conjunctions of comparisons where they can; `true` and `false`
/// swap. (`Formula::negate` builds a `Not` node instead; quick_decide.h's `complement`
/// is the partial form that has no `true` or `false`.)
Formula negation(const Formula& f);

inline Formula lt(const Poly& a, const Poly& b) {
  return Formula::cmp(a, Rel::Lt, b);
}
inline Formula le(const Poly& a, const Poly& b) {
  return Formula::cmp(a, Rel::Le, b);
}
inline Formula gt(const Poly& a, const Poly& b) {
  return Formula::cmp(a, Rel::Gt, b);
}
inline Formula ge(const Poly& a, const Poly& b) {
  return Formula::cmp(a, Rel::Ge, b);
}
inline Formula eq(const Poly& a, const Poly& b) {
  return Formula::cmp(a, Rel::Eq, b);
}

/// A scalar expression used as a fact; nullopt with a message when it is not a boolean
/// combination of integer comparisons.
std::optional<Formula> formula_of(const SExp& e, std::string* error);
/// Parses a fact in the scalar-expression syntax; errors carry a 1-based column.
std::optional<Formula> parse_fact(const std::string& text, Diagnostic* error);
/// Parses an LMAD in the syntax of types (`off + {(n : s), ...}`, `R(...)`, `C(...)`).
std::optional<SymLmad> parse_sym_lmad(const std::string& text, Diagnostic* error);

/// The lowest and highest address of a symbolic LMAD over its points, with the stride of
/// every dimension that may hold more than one element of a sign `proves` shows.
/// Example: for `5 + {(n : 1), (m : -2)}` with n, m >= 2 shown, lo = 5 - 2m + 2 and
/// hi = 5 + n - 1.
struct LmadExtent {
  Poly lo, hi;
  std::vector<Formula> empty; // each one says the LMAD has no point (a count <= 0)
  /// The LMAD is empty, or its addresses lie in [a, b].
  Formula within(const Poly& a, const Poly& b) const;
};
/// Nullopt when a stride's sign is not shown (throws SymbolicOverflow like Poly).
std::optional<LmadExtent> lmad_extent(const SymLmad& l,
                                      const std::function<bool(const Formula&)>& proves);

/// One question of `funmem-prove --batch`: `LMAD1 ; LMAD2 ; FACT, FACT, ...`.
struct ProveQuery {
  SymLmad l1, l2;
  std::vector<Formula> facts;
  std::string text1, text2;
  std::vector<std::string> fact_texts;
};
/// Parses one batch line; on error `error->pos.col` is the 1-based column in the line.
std::optional<ProveQuery> parse_prove_line(const std::string& line, Diagnostic* error);

/// Every formula evaluates to true under env (a name it lacks is an error: false).
bool all_hold(const std::vector<Formula>& fs, const Env& env);

/// The brute-force enumerator of the prover's searches and of the tests that check the
/// prover against enumeration: calls `visit` with every assignment of `values` to
/// `vars` (the first name varying fastest), at most `limit` of them, until it returns
/// false. Returns how many it visited.
/// Example: for_each_assignment({"n", "m"}, {0, 1}, f) visits {n=0,m=0}, {n=1,m=0},
/// {n=0,m=1}, {n=1,m=1}.
size_t for_each_assignment(const std::vector<std::string>& vars, const std::vector<int64_t>& values,
                           const std::function<bool(const Env&)>& visit,
                           size_t limit = static_cast<size_t>(-1));
/// The values lo, lo + 1, ..., hi.
std::vector<int64_t> value_range(int64_t lo, int64_t hi);

} // namespace funmem
