// funmem-to-imp (thesis 4.7, procs. 4.6-4.7): a FUNMEM program as an IMP program.
// Views cost nothing (no code); scalars become `var` + assignment; an index becomes a
// read at the LMAD's offset; `alloc` stays; a kernel becomes an IMP `kernel` whose body
// ends with COPY of its result into the result's place (a nest of IMP kernels for an
// array result, left out when the result was built in place); `if` and `loop` declare
// their scalar and memory results before and assign them at the end of each branch /
// iteration (`loop` becomes `for`); updates, concat, iota, replicate and copy become
// kernels writing the destination. Arrays do not exist in IMP: the program takes and
// returns memory blocks (and scalars). `assume` has no IMP counterpart and is dropped.
#pragma once

#include "ir/ast.h"
#include "ir/imp.h"
#include "ir/lmad.h"

#include <optional>
#include <string>

namespace funmem {

/// The FUNMEM index function an IMP write's index was computed from: the write stores
/// element `idx` (names of the enclosing IMP loop counters, outermost first) of the
/// place `lmad` of block `mem`, i.e. its index is lmad_apply(lmad, idx).
struct WriteOrigin {
  std::string what; // e.g. `the result of the kernel at 5:3 in its place in ys_mem`
  Pos pos;
  std::string mem;
  SymLmad lmad;
  std::vector<std::string> idx;
};

struct ToImpReport {
  int kernels = 0;     // IMP kernels (parallel loops) generated
  int copies = 0;      // COPY nests generated
  int elided = 0;      // copies left out because the value was built in place
  int temporaries = 0; // blocks made for a copy whose source may share the destination's cells
  std::vector<WriteOrigin> origins; // indexed by imp::Write::origin
};

std::optional<imp::Program> funmem_to_imp(const Program& p, ToImpReport* report = nullptr,
                                          std::string* error = nullptr);

} // namespace funmem
