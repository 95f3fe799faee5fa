// Property-based fuzzing of the whole toolkit: one generated FUN program goes
// through every check, and the first failing check is reported.
#pragma once

#include "analysis/pipeline.h"
#include "verifier/gen.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace funmem {

struct FuzzOutcome {
  bool ok = true;
  std::string check;  // the failing check: parse, round trip, typecheck, pipeline, ...
  std::string detail; // what it said
  std::string kind;   // of a validity failure: input, value semantics: K, heap semantics: K
                      // (K the run-time error's kind), race, results differ (shrinking
                      // keeps it)
  int checks = 0;     // checks that passed
  /// How often sc exercised each rule of docs/short-circuit.md (count_sc_rules), for
  /// the campaign's rule-coverage report.
  std::map<std::string, int64_t> rules;
};

/// The checks of one program text: it parses; printing and re-parsing gives the same
/// tree; it type-checks; and funmem-check's checks hold on every data set (the FUN
/// value semantics runs, and after every pipeline stage the program type-checks, is
/// valid against the value semantics and race-free).
/// `passes` may switch on a broken pass variant (analysis/pipeline.h).
/// A FUNMEM program (`lang`, a mutant of verifier/mutate.h) is checked up to the stage
/// comparison: every stage ends as its own heap semantics does.
FuzzOutcome fuzz_program(const std::string& text, const PassOptions& passes = {},
                         Lang lang = Lang::Fun);

/// A smaller program that still fails the same check: statements (with their nested
/// bodies) dropped, `if`s replaced by one branch, statements replaced by constants,
/// results dropped, sub-expressions (scalar lets, arguments, indices, slice bounds,
/// conditions, assumptions) replaced by one of their operands and indices by 0, data
/// sets dropped, sizes lowered, while the same check keeps failing (for a validity
/// failure, the same kind of it). A FUNMEM mutant (`lang`) is shrunk by the same edits;
/// those that leave it ill-typed (an allocation dropped before its arrays) are not kept.
/// `steps` (optional) counts the candidate programs tried.
std::string shrink(const std::string& text, const FuzzOutcome& failure, int* steps = nullptr,
                   const PassOptions& passes = {}, Lang lang = Lang::Fun);

/// The two programs that replace the `if` statement at line `i` of `ls` (a generated
/// program's lines) by one of its branches: the branch's statements, moved out, then
/// each pattern bound to the branch's result in its place (`copy` of it for an array).
/// Empty when line i is not a `let ... = if ... then` with its `else`, or when a branch's
/// results do not match the patterns.
std::vector<std::vector<std::string>> keep_one_branch(const std::vector<std::string>& ls, size_t i);

/// The direct operands of the scalar expression `text`, printed (`abs(s3) - s3` gives
/// `abs(s3)` and `s3`); empty for a name, a literal or text that is not an expression.
std::vector<std::string> expression_operands(const std::string& text);

/// The lines that replace `line` (of a generated program), each with one sub-expression
/// of its right-hand side or assumption made simpler: a call's, a parenthesised
/// expression's or an `if` condition's operand in its place, or for a component of an
/// index, slice or update (`xs[i + 1, 0 : n]`) and for the offset of an LMAD slice
/// (`f[m - 1 + {(n : m)}]`) an operand or `0`. The let's pattern is
/// left alone.
std::vector<std::string> simpler_expressions(const std::string& line);

/// The programs that drop one result of the function of `ls` (from its result types and
/// its final `in (...)`), the last result first; empty when it has a single result.
std::vector<std::vector<std::string>> drop_one_result(const std::vector<std::string>& ls);

/// The safety properties sc refuses on the FUN program `text` after fun-to-funmem,
/// sorted: the `-- refuses:` lines a corpus file must carry (docs/syntax.md).
std::vector<std::string> sc_refusals(const std::string& text);

/// The lines of a text, without their line ends.
std::vector<std::string> split_lines(const std::string& text);

/// The program for `seed` (the campaign's seed mixed with the program's number).
uint64_t program_seed(uint64_t campaign_seed, uint64_t index);

} // namespace funmem
