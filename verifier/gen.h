// Random well-typed FUN programs for property-based fuzzing. A program is
// generated as source text, type-directed, valid by construction: every index is a
// counter of a kernel or loop over the indexed dimension or 0 (sizes are at least 1 in
// the generated data sets), every in-place update consumes a fresh copy or a loop
// parameter and nothing reads it afterwards, integer arithmetic stays far from overflow
// (+, -, min, max, abs on small values). The same seed gives the same program.
#pragma once

#include <cstdint>
#include <string>

namespace funmem {

struct GenOptions {
  int max_stmts = 4;  // statements per body (at least 1)
  int max_depth = 2;  // nesting of kernels, loops and ifs
  int max_size = 4;   // sizes n and m of the data sets are drawn from 1..max_size
  int data_sets = 2;  // `-- input:` lines
  bool floats = true; // also generate f64 / f32 arrays and arithmetic
  /// Make the program fail with a bounds error: after the statements, an element read
  /// or an in-place update at index n of an array of n elements (`-- expect: error
  /// bounds` instead of `valid`), so that every pipeline stage must still report it.
  bool out_of_bounds = false;
  /// Percent of the programs whose one data set gives every array with boundary values
  /// (0, +-1, the ends of i32 and i64, 2^62; fractions, -0.0 and +-1e300; sizes 0 to 3)
  /// instead of the `-- input:` lines above; their `-- expect:` line says how the value
  /// semantics ends on it (`valid` or `error KIND`).
  int boundary_percent = 25;
  /// Percent of the programs with the parameters za, zb and zs : [(za - zb) * n]i64,
  /// whose data sets make za - zb small and za, zb sometimes 2^62: the terms of the size's
  /// normal form leave i64 while the size does not (gen_inputs.h). Off by default: the
  /// short-circuiting questions over such sizes are nonlinear, and these programs take
  /// seconds each (docs/fuzzing.md).
  int sized_percent = 0;
  /// Percent of the programs checked as a FUNMEM mutant instead (verifier/mutate.h): the
  /// lowered program with one block made smaller, a layout moved, an array moved into
  /// another's block, a kernel's allocation moved out of it, an array placed beside
  /// another (or before its update), or an array added to a loop's or an if's block.
  /// Chosen by the program's seed alone.
  int funmem_percent = 0;
};

/// A generated FUN program with `-- input:` and `-- expect: valid` (or `error bounds`)
/// lines.
std::string generate_fun(uint64_t seed, const GenOptions& opt = {});

} // namespace funmem
