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

} // namespace funmem
