// Type checkers for FUN (thesis fig. 4.2) and FUNMEM (fig. 4.6), extended to the
// whole syntax of docs/syntax.md: sequential loops with memory parameters, in-place
// updates, concat, LMAD slices, element types, and the consumption rule (an array
// consumed by `with`, and every alias of it, is dead afterwards). Sizes compare by
// polynomial normal form after substituting `let`-bound integer definitions.
// All errors of a program are reported, each with its position.
#pragma once

#include "ir/ast.h"
#include "ir/diagnostic.h"
#include "ir/symbolic.h"

#include <map>
#include <optional>
#include <vector>

namespace funmem {

/// Checks a program in its language (p.lang). Returns every error found (kind "type").
std::vector<Diagnostic> typecheck(const Program& p);

/// Converts an integer scalar expression to its normal form, or nullopt if it is not
/// polynomial (uses casts to other types, comparisons, select, ...). May throw
/// SymbolicOverflow.
std::optional<Poly> to_poly(const SExp& e);

/// The scalar expression of a normal form: the tree parse_sexp(p.to_string()) gives,
/// built without printing and parsing; nullopt where that text does not parse (a
/// name that is not one of the syntax, a term -9223372036854775808 after the first).
std::optional<SExpP> to_sexp(const Poly& p);

} // namespace funmem
