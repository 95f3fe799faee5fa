// When the value semantics may drop a binding: for every body of a definition, the
// names of its own scope (its let-bound names, a loop's parameters and index, a
// kernel's index, the definition's parameters for the outermost body) grouped by the
// statement that mentions them last, and those no statement mentions. A branch of an
// `if` also owns the names of the enclosing scope whose last mention is that `if`; a
// loop or kernel body owns none of the enclosing scope (it runs again).
// Mentions are syntactic (ir/names.h: every name a statement or a nested body names),
// so a dropped name is never looked up again whatever the type checker concluded; an
// array whose binding is dropped stays alive while any other value (a view, a loop's
// value, a result) holds its block, which the reference count of the block tells.
// Example: in `let b = a with [0] = 1 in (b)`, `a` is mentioned last by the update, so
// the update may take `a`'s array and, when nothing else holds its block, write in place.
#pragma once

#include "ir/ast.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace funmem::machine {

struct BodyPlan {
  std::vector<std::vector<std::string>> dies_at; // per statement: names mentioned last there
  std::vector<std::string> unused;               // names of the scope no statement mentions
};

class Liveness {
public:
  explicit Liveness(const Def& d);
  /// The plan of a body of the definition.
  const BodyPlan& plan(const Body& b) const { return plans_.at(&b); }

private:
  std::unordered_map<const Body*, BodyPlan> plans_;
  void compute(const Body& b, std::vector<std::string> own);
};

} // namespace funmem::machine
