// fun-to-funmem (thesis 4.5, procs. 4.1-4.4): introduces memory into a FUN program.
// - every array parameter gets a memory parameter before it and a row-major layout;
// - views (index, slice, strided slice, LMAD slice, transpose) reuse their source's
//   memory with the LMAD the view computes (fig. 3.6);
// - every fresh array (kernel, iota, replicate, copy, concat, scratch) gets its own
//   `alloc` of the product of its sizes and a row-major layout;
// - an update keeps its source's memory and layout;
// - `if` and `loop` results carry their memory block existentially: each branch (and
//   each loop body, and each loop's initial value) returns a block and a row-major
//   array in it, copied only when the array is not already row-major in its block;
// - program results are row-major arrays in their own blocks, copied only when they
//   are not (thesis proc. 4.1 always copies; a fresh row-major result needs no copy).
// The output is a FUNMEM program that type-checks and has the same value semantics.
#pragma once

#include "ir/ast.h"

#include <optional>
#include <string>

namespace funmem {

struct FunToFunmemReport {
  int allocations = 0; // `alloc` statements added
  int copies = 0;      // copies added to make if/loop/program results row-major
  int mem_params = 0;  // memory parameters added
};

/// Translates a well-typed FUN program. Returns nullopt with a message in `error` for
/// the constructs it cannot translate (none in the current syntax; kept for safety).
std::optional<Program> fun_to_funmem(const Program& fun, FunToFunmemReport* report = nullptr,
                                     std::string* error = nullptr);

} // namespace funmem
