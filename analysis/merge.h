// Memory block merging (thesis chapter 5), per statement list (the top level and every
// kernel, loop and branch body): blocks allocated in the list whose names are used
// only in `@mem ->` annotations (they never flow out through results, loop initial
// values or branch results) get a live range from their first to their last mention
// (the statement that mentions a block or an array in it; body results count as a use
// at the end). Blocks interfere when their ranges overlap or their arrays have
// different element types. A greedy colouring in allocation order merges each colour
// into its first member's allocation, sized to the maximum of the members' sizes
// (`max(a, b)`), provided every member's size is computable there.
// Example: `let (am : mem) = alloc n` ... a last used ... `let (bm : mem) = alloc m`
// becomes one `alloc max(n, m)` holding both arrays.
#pragma once

#include "ir/ast.h"

namespace funmem {

struct MergeReport {
  int blocks_before = 0; // alloc statements before
  int blocks_after = 0;  // and after
  int merged = 0;        // blocks folded into another one
};

struct MergeOptions {
  /// Deliberately broken: blocks with overlapping live ranges are merged too (for the
  /// fuzzer's tests, analysis/pipeline.h).
  bool broken_no_interference = false;
};

/// Merges memory blocks of a FUNMEM program; the result type-checks and is valid when
/// the input is.
Program merge_blocks(const Program& p, MergeReport* report = nullptr, const MergeOptions& opt = {});

} // namespace funmem
