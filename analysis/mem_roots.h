// The blocks a FUNMEM memory name may be at run time (to-imp's copies through a new
// block, docs/passes.md).
#pragma once

#include "ir/ast.h"

#include <map>
#include <set>
#include <string>

namespace funmem {

/// The blocks a memory name may be at run time, named by the parameters and `alloc`s
/// they come from (two of those are never one block): an `if`'s or a loop's result and a
/// loop parameter may be what their branches, initial values and body results may be.
/// Names bound twice (in different scopes) get the union, which only adds aliases.
class MemRoots {
public:
  explicit MemRoots(const Def& d);
  /// Whether `a` and `b` may be one block (true for a name it does not know).
  bool may_alias(const std::string& a, const std::string& b) const;

private:
  std::map<std::string, std::set<std::string>> roots_;

  std::set<std::string> of(const std::string& n) const;
  /// Adds `r` to the roots of `n`; whether that changed them.
  bool add(const std::string& n, const std::set<std::string>& r);
  void body(const Body& b);
  void let(const SLet& l);
};

} // namespace funmem
