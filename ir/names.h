// The names FUN / FUNMEM syntax binds and mentions: the variables of a scalar
// expression, every name a body binds, the names that flow out of bodies as values, and
// every name a statement mentions (used by the passes and by the interpreters' liveness).
#pragma once

#include "ir/ast.h"

#include <set>
#include <string>

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

} // namespace funmem
