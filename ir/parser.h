// Parser for the concrete syntax of FUN and FUNMEM (docs/syntax.md), built with
// Boost.Spirit X3. Input: the text of one file; output: a Program or the first parse
// error with its position. Any byte sequence is accepted as input without crashing.
#pragma once

#include "ir/ast.h"
#include "ir/diagnostic.h"

#include <optional>
#include <string>

namespace funmem {

struct ParseResult {
  std::optional<Program> program;
  std::optional<Diagnostic> error;
  /// The `-- expect:` lines, read even when the definition does not parse.
  std::vector<Expect> expects;
};

/// Parses a whole file: one `def` plus `-- input:` / `-- expect:` directives.
ParseResult parse_program(const std::string& text, Lang lang);

/// The language of a file by its extension: `.fun` is FUN, everything else FUNMEM.
Lang lang_of_path(const std::string& path);

/// True when `s` is a name of the syntax (a letter or '_', then letters, digits, '_' and
/// '\'', not a keyword).
bool is_name(const std::string& s);

/// Parsers for fragments, for tools and tests. They return nullopt on error and set
/// `error` when it is given.
std::optional<SExpP> parse_sexp(const std::string& text, Diagnostic* error = nullptr);
std::optional<Type> parse_type(const std::string& text, Diagnostic* error = nullptr);
std::optional<LmadSyn> parse_lmad(const std::string& text, Diagnostic* error = nullptr);
/// One data set in the `-- input:` syntax, e.g. `n=4 xs=[1, 2, 3, 4]`.
std::optional<InputSet> parse_input_set(const std::string& text, Diagnostic* error = nullptr);

} // namespace funmem
