// Checks of program text that need no grammar, used by the parser (parser.h): the
// screening of bytes and nesting before parsing, and the `-- expect:` lines.
#pragma once

#include "ir/ast.h"
#include "ir/diagnostic.h"

#include <optional>
#include <string>

namespace funmem {

/// Brackets, bodies and unary operators nested deeper than this are an error.
constexpr int kMaxNesting = 200;

/// Screens the text: bytes outside printable ASCII are an error except inside comments,
/// where they are blanked; nesting is bounded (kMaxNesting).
std::optional<Diagnostic> screen(std::string& text);

/// The expectation of a `-- expect:` line (`rest` is the text after the tag, `pos` the
/// tag's position): valid, invalid, race, error KIND or short-circuit N.
std::optional<Diagnostic> parse_expect(const std::string& rest, Pos pos, Expect& e);

} // namespace funmem
