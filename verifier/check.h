// Checking one FUN / FUNMEM file: parse, type-check, and compare the outcome with the
// file's `-- expect:` lines. Run-time expectations (valid, race, run-time errors,
// short-circuit counts) need the interpreters and the optimiser; until those exist
// they are reported as unchecked, never as holding.
#pragma once

#include "ir/ast.h"
#include "ir/diagnostic.h"

#include <string>
#include <vector>

namespace funmem {

enum class ExpectStatus { Holds, Fails, Unchecked };
const char* expect_status_name(ExpectStatus s);

struct ExpectResult {
  Expect expect;
  ExpectStatus status = ExpectStatus::Unchecked;
  std::string detail;
};

struct CheckReport {
  std::string file;
  Lang lang = Lang::Fun;
  bool parsed = false;
  bool typed = false;
  std::vector<Diagnostic> diagnostics;
  std::vector<ExpectResult> expectations;
  /// True when no expectation fails.
  bool ok() const;
};

/// Checks the text of one file (named `file` in messages; its extension picks the language).
CheckReport check_source(const std::string& file, const std::string& text);

} // namespace funmem
