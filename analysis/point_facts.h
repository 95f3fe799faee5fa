// What holds at a point of a FUNMEM definition, and what the allocation passes (hoist,
// expand) may conclude from it: whether a scalar expression or a statement can end the
// run with an error of the program (docs/short-circuit.md, "Statements that may fail":
// the same judgement, without short-circuiting's summaries of loops and kernels).
//
// Facts are the dimensions of the parameters' arrays (>= 0, and an input array has at
// most 2^28 elements), the sizes that statements before the point checked (`iota n`,
// `replicate n`, `kernel i < n`: n >= 0; `alloc s`: 0 <= s <= 2^59), `assume` and
// `assert` conditions, integer definitions `k = e` (e a polynomial), and the range
// 0 <= i < n of every kernel and loop index around the point. Other arrays' dimensions
// are not facts: nothing checks the rows of a kernel that runs no thread. A fact is taken
// only when every name in it is an integer; rebinding a name drops the facts on it.
// Walk a body with one PointFacts: `after(s)` once statement s has completed, and a
// copy with `enter_range` for a nested kernel or loop body.
// Example: after `let (a : [n]i64 ...) = iota n` and `assume d > 0`, `10 / d` is safe and
// `n - 1 >= -1` is proved.
#pragma once

#include "analysis/formula.h"
#include "analysis/solver.h"
#include "ir/ast.h"
#include "ir/overloaded.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace funmem {

class PointFacts {
public:
  /// The facts at the top of `d`'s body: its parameters' types.
  explicit PointFacts(const Def& d);

  /// Statement `s` has completed: its bindings replace earlier ones of their names, and
  /// its facts hold.
  void after(const Stmt& s);
  /// Inside a kernel or loop body over `iter < bound`.
  void enter_range(const Name& iter, const SExpP& bound);
  /// Names bound with nothing known about their values (a loop's parameters).
  void bind(const Binding& b);

  bool proves(const Formula& goal);
  /// Evaluating `e` cannot fail: every integer `+ - *`, negation and `abs` stays within
  /// +-2^62 (i32: its range), every `/ %` has a divisor kept away from 0 (and from -1
  /// under the least value), and it converts nothing to an integer type.
  bool safe(const SExp& e);
  /// A size: evaluating it cannot fail and it is not negative.
  bool safe_size(const SExp& e);
  /// Whether `s` may end the run with an error of the program (running out of memory
  /// is not one: it may trade places with them).
  bool may_fail(const Stmt& s);
  /// The kind and (element) type of a name in scope (scalars whose type was inferred
  /// included).
  struct NameType {
    Type::Kind kind = Type::Kind::Scalar;
    ScalarType elem = ScalarType::I64;
  };
  std::optional<NameType> type_of(const std::string& n) const;
  const std::vector<Formula>& facts() const { return *facts_; }

private:
  std::optional<ScalarType> scalar_type(const SExp& e) const;
  void forget(const std::string& n);
  void nonnegative(const SExp& e);
  void add(const std::optional<Formula>& f);

  std::map<std::string, NameType> types_;
  // Copies share the facts until one of them changes them (walks copy a PointFacts per
  // statement); `mentioned_` holds every name the facts mention.
  std::shared_ptr<const std::vector<Formula>> facts_ = std::make_shared<std::vector<Formula>>();
  std::shared_ptr<const std::set<std::string>> mentioned_ =
      std::make_shared<std::set<std::string>>();
  // The answers for facts_, shared by copies until the facts change.
  std::shared_ptr<std::map<std::string, bool>> answers_;
};

/// Calls f on every body nested in `s` with the facts inside it.
template <class F> void each_body_with(Stmt& s, const PointFacts& at, F f) {
  auto* l = std::get_if<SLet>(&s.node);
  if (!l) return;
  std::visit(Overloaded{[&](EIf& x) {
                          f(x.then_body, at);
                          f(x.else_body, at);
                        },
                        [&](EKernel& x) {
                          PointFacts in = at;
                          in.enter_range(x.iter, x.bound);
                          f(x.body, in);
                        },
                        [&](ELoop& x) {
                          PointFacts in = at;
                          for (const Binding& p : x.params)
                            in.bind(p);
                          in.enter_range(x.iter, x.bound);
                          f(x.body, in);
                        },
                        [](auto&) {}},
             l->exp.node);
}

/// Whether every array of `b` annotated `@z` (its bindings, loop parameters included, at
/// any depth) stays inside the block's first `size` elements or is empty, shown with the
/// facts where it is bound (`facts`: those at the top of `b`); `why` names the first one
/// not shown to. Expand and merge need it: a block made larger would hide a write outside
/// the original one.
bool arrays_inside_block(Body& b, const std::string& z, const Poly& size, PointFacts facts,
                         std::string& why);

} // namespace funmem
