// The abstract syntax of IMP (thesis fig. 4.12), the imperative target of
// funmem-to-imp: declarations, assignments, allocations, one-dimensional reads and
// writes of memory blocks, `if`, parallel `kernel` and sequential `for` loops.
// Scalar expressions are shared with FUN (ir/ast.h). Printed form: docs/syntax.md.
#pragma once

#include "ir/ast.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace funmem::imp {

struct Stmt;
using Block = std::vector<Stmt>;

struct Skip {
  friend bool operator==(const Skip&, const Skip&) = default;
};
/// `var x : i64` or `var m : mem`
struct Decl {
  Name name;
  bool is_mem = false;
  ScalarType type = ScalarType::I64;
  friend bool operator==(const Decl&, const Decl&) = default;
};
/// `x <- e`
struct Assign {
  Name name;
  SExpP value;
  friend bool operator==(const Assign&, const Assign&) = default;
};
/// `m <- alloc e`
struct Alloc {
  Name mem;
  SExpP size;
  friend bool operator==(const Alloc&, const Alloc&) = default;
};
/// `x <- m[e]`
struct Read {
  Name dst;
  Name mem;
  SExpP index;
  friend bool operator==(const Read&, const Read&) = default;
};
/// `m[e] <- e'`
struct Write {
  Name mem;
  SExpP index;
  SExpP value;
  /// Where funmem-to-imp took the index from (ToImpReport::origins), -1 when unknown;
  /// not part of the program's meaning, so equality ignores it.
  int origin = -1;
  friend bool operator==(const Write& a, const Write& b) {
    return a.mem == b.mem && a.index == b.index && a.value == b.value;
  }
};
/// `assert e KIND ;`: a check of the source semantics that IMP's blocks cannot make
/// (an index within its array's dimension: an array may share a larger block); when e
/// is false the run ends with a KIND error.
struct Assert {
  SExpP cond;
  std::string kind = "bounds";
  friend bool operator==(const Assert&, const Assert&) = default;
};
struct If {
  SExpP cond;
  Block then_block, else_block;
  friend bool operator==(const If&, const If&) = default;
};
/// `kernel i < n do ... done` (parallel) or `for i < n do ... done` (sequential)
struct Loop {
  bool parallel = false;
  Name iter;
  SExpP bound;
  Block body;
  friend bool operator==(const Loop&, const Loop&) = default;
};

struct Stmt {
  std::variant<Skip, Decl, Assign, Alloc, Read, Write, If, Loop, Assert> node;
  Pos pos;
  friend bool operator==(const Stmt&, const Stmt&) = default;
};

struct Param {
  Name name;
  bool is_mem = false;
  ScalarType type = ScalarType::I64;
  friend bool operator==(const Param&, const Param&) = default;
};

/// The array a block result holds: a FUNMEM def's result array is row-major at offset 0
/// of its block, so the result is the block's first `count` cells, read as `elem`, and a
/// read that fails is reported at the array's name, as the source semantics does.
struct ResultArray {
  Name array;
  ScalarType elem = ScalarType::I64;
  SExpP count;
  friend bool operator==(const ResultArray&, const ResultArray&) = default;
};

struct Program {
  Name name;
  std::vector<Param> params;
  Block body;
  std::vector<Name> results;
  /// Empty, or one entry per result: the array a block result holds (without one, the
  /// whole block is read, as the type of its first written cell).
  std::vector<std::optional<ResultArray>> result_arrays;
  Pos pos;
  friend bool operator==(const Program&, const Program&) = default;
};

/// Prints an IMP program in the form of docs/syntax.md, one statement per line.
std::string print(const Program& p);

} // namespace funmem::imp
