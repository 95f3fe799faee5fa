// The reference interpreters of FUN and FUNMEM (thesis 4.3-4.4).
//   Semantics::Value - fig. 4.4: every array is a value; views read their source,
//                      every other array expression builds a fresh array, updates
//                      copy. Runs FUN programs (a FUNMEM program is first `unmem`ed).
//   Semantics::Heap  - fig. 4.8: a heap of memory blocks; arrays are (block, LMAD);
//                      `alloc` makes blocks, kernel results and updates are copied
//                      with memcpy (fig. 4.10, a copy onto itself is elided), and the
//                      reads and writes of every kernel iteration are traced and
//                      checked with racefree (fig. 4.9).
// Run-time errors (bounds, overflow, division, assume, elemtype, size, resource) end a
// run with a RunError that carries the source position.
#pragma once

#include "interp/scalar.h"
#include "ir/ast.h"
#include "ir/imp.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace funmem {

enum class Semantics { Value, Heap };

struct Limits {
  int64_t max_memory_bytes = int64_t(4) << 30; // live memory blocks, 16 bytes per element
  int64_t max_steps = 2'000'000'000;           // statements, iterations and copied elements
  /// Heap semantics: the cell audit (docs/interpreters.md). Every block cell remembers
  /// when and where it was last written, every array when its contents were complete;
  /// a read of a cell written after that, or never written, ends the run with an
  /// `audit` error. 24 more bytes per cell, and a check per read.
  bool audit = false;
};

/// An input (or result) value: a scalar, or an array as shape + row-major elements.
struct Data {
  bool is_array = false;
  bool is_mem = false; // a memory block result of a FUNMEM program (no value)
  Scalar scalar;
  ScalarType elem = ScalarType::I64;
  std::vector<int64_t> shape;
  std::vector<Scalar> elems;
  std::string to_string(size_t max_elems = 16) const;
};

using Inputs = std::map<std::string, Data>;

/// Resolves a data set against the parameters of `def` (FUN or FUNMEM): literals,
/// `iota`, `zeros`, `random`; array parameters not given get seeded random values in
/// -8..8; integer size parameters not given are inferred from array shapes.
/// Throws RunError("size" / "elemtype") when the data does not fit the types.
Inputs make_inputs(const Def& def, const InputSet* set, uint64_t seed);

/// A data race (fig. 4.9): iteration `writer` of the kernel at `kernel` wrote element
/// `offset` of block `block`, which iteration `other` also wrote (or read).
struct Race {
  Pos kernel;
  int64_t writer = 0, other = 0;
  std::string block;
  int64_t offset = 0;
  bool other_writes = false;
  std::string to_string() const;
};

struct RunStats {
  int64_t steps = 0;
  int64_t reads = 0, writes = 0;              // element accesses of the heap
  int64_t checked = 0;                        // accesses checked for races (per enclosing kernel)
  int64_t copies = 0, elided = 0;             // memcpy calls done / elided (copy onto itself)
  int64_t copied_elems = 0, elided_elems = 0; // elements those calls copied / did not copy
  int64_t in_place = 0; // value semantics: updates done in place (no other value held the array)
  int64_t allocs = 0;
  int64_t peak_bytes = 0;
  double kernel_seconds = 0; // wall time inside outermost kernels
};

struct RunResult {
  std::optional<RunError> error;
  std::vector<Data> results; // one per result of the def (mem results have is_mem)
  std::vector<Race> races;   // the first race of each racy kernel execution
  RunStats stats;
};

/// Runs the def of `p` on the inputs. Value semantics needs a FUN program.
RunResult run_program(const Program& p, Semantics s, const Inputs& in, const Limits& lim = {});

/// Runs an IMP program (fig. 4.13) on the same heap as the FUNMEM semantics: `kernel`
/// loops are traced and checked with racefree like FUNMEM kernels (each iteration starts
/// from the environment before the loop; its heap writes persist), `for` loops run in
/// order. Scalar parameters come from `in`; a `mem` parameter is a block holding the
/// elements of the array input of the same name. A `mem` result is returned as the 1-d
/// array of the block's elements (read as the type of its first written cell, i64 when
/// none was written).
RunResult run_imp(const imp::Program& p, const Inputs& in, const Limits& lim = {});

/// Compares the results of an IMP program (memory blocks as 1-d arrays, and scalars)
/// with value-semantics results (arrays and scalars, in the same order): an array must
/// be the row-major prefix of its block.
std::optional<std::string> compare_imp_results(const std::vector<Data>& value,
                                               const std::vector<Data>& imp);

/// The inputs of the IMP translation of a FUNMEM def: scalars as they are, and each
/// memory parameter as the block the heap semantics makes of it, holding the array
/// parameters placed in it (cells no array fills are zero). Throws the heap semantics'
/// RunError where it cannot place them (a layout that overflows, reaches below its block
/// or beyond any).
Inputs imp_inputs(const Def& funmem_def, const Inputs& in, const Limits& lim = {});

/// Compares results for validity (def. 4.4.1): arrays and scalars in order, memory
/// results skipped. Returns a description of the first difference, or nullopt.
std::optional<std::string> compare_results(const std::vector<Data>& value,
                                           const std::vector<Data>& heap);

} // namespace funmem
