// The pass registry used by funmem-opt and funmem-check: a pass by name, its result
// type-checked, and a one-line report of what it did.
#pragma once

#include "analysis/short_circuit.h"
#include "ir/ast.h"

#include <optional>
#include <string>
#include <vector>

namespace funmem {

struct PassResult {
  std::optional<Program> program; // empty on failure
  std::string error;              // why it failed (including an ill-typed result)
  std::string report;             // what it did
  std::optional<ScReport> sc;     // the attempts of the sc pass
};

/// The names of the passes, in pipeline order.
const std::vector<std::string>& pass_names();

/// Runs the pass `name` on `p` and type-checks the result. With `p_typed` (the caller
/// has type-checked p), a result equal to p is not checked again.
PassResult run_pass(const std::string& name, const Program& p, bool p_typed = false);

} // namespace funmem
