// Diagnostics shared by the parser, the type checkers and the tools:
// `file:line:col: error: message`, then the source line and a caret.
#pragma once

#include "ir/ast.h"

#include <string>
#include <vector>

namespace funmem {

struct Diagnostic {
  std::string kind; // "parse", "type", ... (the word used by `-- expect: error KIND`)
  Pos pos;
  std::string message;
};

/// Renders one diagnostic compiler-style; `source` is the whole file text.
std::string format_diagnostic(const Diagnostic& d, const std::string& file,
                              const std::string& source);

} // namespace funmem
