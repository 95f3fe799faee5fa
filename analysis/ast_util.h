// Rewrites of FUN / FUNMEM syntax shared by the passes (symbolic entries, unique names,
// invariant memory parameters dropped) and fresh names that cannot clash with any bound
// name. The traversals that collect names are in ir/names.h.
#pragma once

#include "ir/ast.h"
#include "ir/lmad.h"
#include "ir/names.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace funmem {

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

/// A sufficient condition for the LMAD `dims` (count, stride) to send distinct points to
/// distinct cells, evaluated at run time without an operation that can overflow: some
/// count is at most 0 (no point), or every count and stride lies within +-2^28 and the
/// strides are nested in the written order or in its reverse (each dimension of more
/// than one point steps beyond the span of the dimensions after it). False where the
/// LMAD is injective but too large or not nested: the caller then takes the safe path.
/// Evaluates every count and stride.
SExpP lmad_injective(const std::vector<std::pair<SExpP, SExpP>>& dims, Pos pos);

/// An LMAD's components marked as the source evaluates them (interp/machine.cpp,
/// eval_lmad), for IMP: counts and dense extents as sizes, the offset and strides as
/// addresses, the explicit form's components in normal form (ir/convert.h).
LmadSyn lmad_as_evaluated(const LmadSyn& l);

/// `0 < d1 && 0 < d2 ...` (as sizes) for the dimensions after the first of `l` that may
/// be 0, nullptr when none may: a nest of loops over `l`'s points runs only under it,
/// since the source writes nothing into an array with an empty dimension, however many
/// rows it has (a loop over 2^62 empty rows is a resource error).
SExpP inner_dims_nonempty(const SymLmad& l, Pos pos);

/// The source semantics' bounds check of a slice entry `start : count : stride` of a
/// dimension of `dim` elements as a condition: `count <= 0`, or `0 <= start < dim` and the
/// last element `start + (count - 1) * stride` inside too, computed without an operation
/// that can overflow or divide by zero (the steps left before an end, against `count - 1`),
/// so that evaluating it fails only where evaluating an operand does. `stride` may be null
/// (1).
SExpP slice_inside(const SExpP& start, const SExpP& count, const SExpP& stride, const SExpP& dim,
                   Pos pos = {});

/// The operands of a condition built by slice_inside (`stride` always set: the literal 1
/// where slice_inside was given none), or nullopt for any other condition.
struct SliceInsideParts {
  SExpP start, count, stride, dim;
};
std::optional<SliceInsideParts> slice_inside_parts(const SExp& cond);

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
