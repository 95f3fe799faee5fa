// Conversion between the syntax of scalar expressions and LMADs (SExp, LmadSyn) and
// their symbolic forms (Poly, SymLmad). The one place where syntax becomes algebra:
// the type checker, the interpreters, the passes and the prover's facts use it.
//   to_poly / to_sexp       nullopt when the expression (polynomial) has no counterpart
//   poly / sexp / sym_lmad  the same for the passes, throwing Untranslatable
#pragma once

#include "ir/ast.h"
#include "ir/lmad.h"
#include "ir/symbolic.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace funmem {

/// Converts an integer scalar expression to its normal form, or nullopt if it is not
/// polynomial (uses casts to other types, comparisons, select, ...). May throw
/// SymbolicOverflow.
std::optional<Poly> to_poly(const SExp& e);

/// The scalar expression of a normal form: the tree parse_sexp(p.to_string()) gives,
/// built without printing and parsing; nullopt where that text does not parse (a
/// name that is not one of the syntax, a term -9223372036854775808 after the first).
std::optional<SExpP> to_sexp(const Poly& p);

/// The normal form of an integer expression as an expression (`k*k - k*k + n` is `n`),
/// or the expression itself where it has none; its nodes are at the expression's
/// position. Passes that insert a size or index take
/// it: the source's sizes are polynomials, and a term that cancels must not overflow.
SExpP normal_form(const SExpP& e);

/// For IMP: `size(e)` (evaluated over the integers, as the source evaluates a size) and
/// `address(e)` (modulo 2^64, as it evaluates a layout's offset and strides); `e` itself
/// where it has no + - * or negation (a name or a literal evaluates alike either way).
SExpP as_size(const SExpP& e);
SExpP as_address(const SExpP& e);

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
