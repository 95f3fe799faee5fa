// FUNMEM mutants of generated programs. fun-to-funmem lays every array out inside a block
// of its own, so the FUN generator never makes a layout that leaves its block, a block
// shared by several arrays, a block that a kernel's threads share, or an array beside a
// loop's or an if's array in their block: the rules of docs/short-circuit.md about
// those never fire on it. A mutant is the lowered program with one of these changes; it
// is judged by how every pipeline stage ends against its own heap semantics (it may
// itself end with an error: the stages must end with the same one).
// Example: `let (a_mem : mem) = alloc n` becomes `alloc n - 1`, and the array a in it
// reaches one cell past its block.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace funmem {

struct Mutant {
  std::string text; // the FUNMEM program, with the FUN program's data sets
  std::string what; // the change, for people: "alloc of a_mem made smaller (n - 1)"
};

/// A mutant of the FUN program `fun_text` after fun-to-funmem, or nullopt when the
/// program does not lower or no change type-checks (several changes are tried).
std::optional<Mutant> funmem_mutant(const std::string& fun_text, uint64_t seed);

} // namespace funmem
