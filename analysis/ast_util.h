// Traversals of FUN / FUNMEM syntax shared by the passes: the names an expression uses,
// the names a program binds, the names that flow out of bodies as values, and fresh
// names that cannot clash with any of them.
#pragma once

#include "ir/ast.h"
#include "ir/lmad.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace funmem {

/// The variables of a scalar expression.
void sexp_vars(const SExp& e, std::set<std::string>& out);

/// Every name bound in a body at any depth (patterns, loop parameters, iterators).
void bound_in(const Body& b, std::set<std::string>& out);

/// Every name bound in a definition: parameters, patterns, loop parameters and
/// kernel / loop iterators, at any depth.
std::set<std::string> bound_names(const Def& d);

/// Names that flow out of bodies as values, at any depth: body results and loop initial
/// values. A memory block named here is passed around, not only used in annotations.
void flowing_names(const Body& b, std::set<std::string>& out);

/// Every name a statement mentions (over-approximated: all names of nested bodies), and
/// separately the memory blocks named in its annotations.
void stmt_mentions(const Stmt& s, std::set<std::string>& names, std::set<std::string>& mems);
void body_mentions(const Body& b, std::set<std::string>& names, std::set<std::string>& mems);
/// Whether a body mentions a name or a memory block at all (as body_mentions would
/// collect it), without building the sets.
bool body_mentions_name(const Body& b, const std::string& n);

/// Calls f on every body nested in a statement (branches, kernel and loop bodies).
template <class F> void each_body(Stmt& s, F f) {
  auto* l = std::get_if<SLet>(&s.node);
  if (!l) return;
  if (auto* x = std::get_if<EIf>(&l->exp.node)) {
    f(x->then_body);
    f(x->else_body);
  } else if (auto* k = std::get_if<EKernel>(&l->exp.node)) {
    f(k->body);
  } else if (auto* lp = std::get_if<ELoop>(&l->exp.node)) {
    f(lp->body);
  }
}

/// Index / slice entries as symbolic entries (throws Untranslatable, see ir/convert.h,
/// when an entry is not an integer polynomial).
std::vector<SymEntry> sym_entries(const std::vector<Entry>& es);

/// The definition with every binding that repeats an earlier one (in a sibling or inner
/// scope) renamed to a fresh name, uses renamed with it: afterwards a name identifies one
/// binding in the whole definition.
Def uniquify(const Def& d);

/// The definition with every loop memory parameter that the loop's body passes on
/// unchanged (its result is the parameter itself) dropped: the parameter and the loop's
/// memory result are the initial block throughout, so their uses (array annotations,
/// results) name that block. No other name changes. Lowering and memory expansion need
/// it: a block passed through a loop is then visibly the same block.
Def drop_invariant_mem_params(const Def& d);

/// The first of `base`, `base2`, `base3`, ... that is not in `used`.
std::string fresh_name(const std::set<std::string>& used, const std::string& base);

/// Fresh names: `base`, then `base2`, `base3`, ... avoiding every name seen so far.
class FreshNames {
public:
  explicit FreshNames(std::set<std::string> used) : used_(std::move(used)) {}
  std::string operator()(const std::string& base);

private:
  std::set<std::string> used_;
  // Per base, the suffix to try next: every smaller one is taken (names only get used),
  // so a run of names of one base costs no rescan.
  std::map<std::string, int> next_;
};

} // namespace funmem
