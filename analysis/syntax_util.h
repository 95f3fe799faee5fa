// Small helpers shared by the passes: between symbolic polynomials / LMADs and the
// syntax of FUNMEM (SExp, LmadSyn, Type).
#pragma once

#include "ir/ast.h"
#include "ir/lmad.h"
#include "ir/parser.h"
#include "ir/typecheck.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace funmem {

/// A construct a pass cannot handle; the pass reports the message.
struct Untranslatable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline Poly poly(const SExp& e) {
  auto p = to_poly(e);
  if (!p) throw Untranslatable("a size or index that is not an integer polynomial");
  return *p;
}

inline SExpP sexp(const Poly& p) {
  auto e = to_sexp(p);
  if (!e) throw Untranslatable("cannot print the polynomial " + p.to_string());
  return *e;
}

inline std::vector<Poly> polys(const std::vector<SExpP>& dims) {
  std::vector<Poly> out;
  for (const SExpP& d : dims)
    out.push_back(poly(*d));
  return out;
}

inline LmadSyn explicit_syn(const SymLmad& l) {
  LmadSyn s;
  s.form = LmadSyn::Form::Explicit;
  s.offset = sexp(l.offset);
  for (const auto& [c, st] : l.dims)
    s.dims.emplace_back(sexp(c), sexp(st));
  return s;
}

inline LmadSyn row_syn(const std::vector<SExpP>& dims) {
  LmadSyn s;
  s.form = LmadSyn::Form::Row;
  s.args = dims;
  return s;
}

inline Type mem_type() {
  Type t;
  t.kind = Type::Kind::Mem;
  return t;
}

/// The LMAD of an annotation as a SymLmad.
inline SymLmad sym_lmad(const LmadSyn& l) {
  if (l.form == LmadSyn::Form::Explicit) {
    SymLmad s;
    s.offset = poly(*l.offset);
    for (const auto& [c, st] : l.dims)
      s.dims.emplace_back(poly(*c), poly(*st));
    return s;
  }
  std::vector<Poly> shape;
  for (const SExpP& a : l.args)
    shape.push_back(poly(*a));
  return l.form == LmadSyn::Form::Row ? row_major(shape) : col_major(shape);
}

} // namespace funmem
