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
#include <set>
#include <vector>

namespace funmem {

/// Checks a program in its language (p.lang). Returns every error found (kind "type").
std::vector<Diagnostic> typecheck(const Program& p);

/// The aliasing roots from before a loop that each of its results may be (docs/syntax.md,
/// Aliases): the initial value's (`inits[k]`, for no iteration), the roots below `start`
/// (those from outside the body) of the body's result `results[k]`, and, where that
/// result is parameter j's value (`param_roots[j]`, -1 for a scalar), whatever result j
/// may be. Shared by the type checker and fun-to-funmem.
std::vector<std::set<int>> loop_result_aliases(const std::vector<std::set<int>>& inits,
                                               const std::vector<int>& param_roots,
                                               const std::vector<std::set<int>>& results,
                                               int start);

} // namespace funmem
