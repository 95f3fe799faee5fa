// Short-circuiting: Facts of statements, loop ranges and places (see pass.h).
#include "analysis/short_circuit/pass.h"

namespace funmem::sc {

std::string at(Pos p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}
/// A slice's bounds check (slice_inside, which divides so as not to overflow) holds
/// exactly where entry_inside of its operands does (tests/analysis/ast_util_test.cpp):
/// that fact, in the form of the questions about the slice's elements, which then need
/// no nonlinear proof; nullopt for any other condition.
static std::optional<Formula> slice_check_fact(const SExp& cond) {
  auto parts = slice_inside_parts(cond);
  if (!parts) return std::nullopt;
  try {
    auto start = to_poly(*parts->start), count = to_poly(*parts->count);
    auto stride = to_poly(*parts->stride), dim = to_poly(*parts->dim);
    if (start && count && stride && dim)
      return entry_inside(SymEntry{*start, *count, *stride}, *dim);
  } catch (const SymbolicOverflow&) {
  }
  return std::nullopt;
}
std::vector<Formula>
stmt_facts(const Stmt& s, const std::function<bool(const std::string&)>& integer, int* dropped) {
  std::vector<Formula> out;
  std::string err;
  auto keep = [&](const std::optional<Formula>& f) {
    if (!f) return;
    for (const std::string& v : f->free_vars())
      if (!integer(v)) {
        if (dropped) ++*dropped;
        return;
      }
    out.push_back(*f);
  };
  if (const auto* a = std::get_if<SAssume>(&s.node)) {
    keep(formula_of(*a->cond, &err));
    keep(slice_check_fact(*a->cond));
    return out;
  }
  const SLet& l = std::get<SLet>(s.node);
  if (l.pats.size() != 1) return out;
  if (const auto* e = std::get_if<EScalar>(&l.exp.node)) {
    SExpP def = mk_bin(BinOp::Eq, mk_var(l.pats[0].name.s), e->e);
    keep(formula_of(*def, &err));
  }
  return out;
}
void range_facts(const std::string& iter, const SExpP& bound, std::vector<Formula>& out) {
  if (!bound) return;
  auto b = to_poly(*bound);
  if (!b) return;
  out.push_back(ge(Poly::var(iter), Poly(0)));
  out.push_back(lt(Poly::var(iter), *b));
}
/// Integer `let` definitions of a body that are polynomials, with earlier ones inlined.
void poly_defs(const Body& b, size_t upto, std::map<std::string, Poly>& defs,
               const std::function<bool(const std::string&)>& integer) {
  for (size_t k = 0; k < upto && k < b.stmts.size(); ++k)
    if (const auto* l = std::get_if<SLet>(&b.stmts[k].node))
      if (l->pats.size() == 1 && integer(l->pats[0].name.s))
        if (const auto* e = std::get_if<EScalar>(&l->exp.node))
          if (auto p = to_poly(*e->e)) {
            bool ints = true;
            for (const std::string& v : p->free_vars())
              ints = ints && integer(v);
            if (ints) defs[l->pats[0].name.s] = p->substitute(defs);
          }
}
bool mentions(const SymLmad& l, const std::string& v) {
  auto fv = lmad_free_vars(l);
  return std::find(fv.begin(), fv.end(), v) != fv.end();
}
/// One entry of an update's place inside a dimension of `dim` elements: an index in
/// [0, dim); a slice empty, or its first and last element in [0, dim).
Formula entry_inside(const SymEntry& e, const Poly& dim) {
  auto in = [&](const Poly& i) { return Formula::conj({ge(i, Poly(0)), lt(i, dim)}); };
  if (!e.count) return in(e.start);
  Poly last = e.start + (*e.count - Poly(1)) * e.stride;
  return Formula::disj({le(*e.count, Poly(0)), Formula::conj({in(e.start), in(last)})});
}
/// Statements that create an array in a block of their own, from sizes and values.
bool fresh_creation(const Exp& x) {
  return std::holds_alternative<EReplicate>(x.node) || std::holds_alternative<EIota>(x.node) ||
         std::holds_alternative<EScratch>(x.node) || std::holds_alternative<EKernel>(x.node);
}

} // namespace funmem::sc
