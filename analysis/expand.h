// Allocation hoisting and memory expansion (thesis 4.6, proc. 4.5).
//
// hoist_allocs: in every statement list, each `alloc` moves up to just after the last
// statement that defines a name its size uses (or to the top of the list). Allocations
// do not leave kernel or loop bodies (that would share one block between iterations)
// nor `if` branches.
//
// expand_memory: hoists, then, bottom-up, takes every `alloc` out of a kernel body
// whose size does not depend on the body (the thread index or names computed in it) and
// whose block does not flow out as a value: `let (z : mem) = alloc s` inside
// `kernel i < n` becomes `let (z' : mem) = alloc (s * n)` before the kernel, and every
// annotation `@z -> L` in the body becomes `@z' -> L'` with
//   CPU layout (per-thread contiguous): L' = L shifted by i * s;
//   GPU layout (interleaved, coalesced): L' = n*offset(L) + i + {(count : n*stride)}
// (the thesis writes the GPU offset as offset(L) + i, which is only right when
// offset(L) is 0). Allocations that cannot be expanded are refused with the reason.
#pragma once

#include "ir/ast.h"

#include <string>
#include <vector>

namespace funmem {

enum class ExpandLayout { Cpu, Gpu };

struct ExpandReport {
  int hoisted = 0;                  // allocations moved up
  int expanded = 0;                 // allocations taken out of kernels
  std::vector<std::string> refused; // "4:7: z: its size depends on the thread index i"
};

Program hoist_allocs(const Program& p, int* moved = nullptr);
Program expand_memory(const Program& p, ExpandLayout layout, ExpandReport* report = nullptr);

} // namespace funmem
