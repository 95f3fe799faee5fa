// libFuzzer target over raw bytes for the parser, printer and type checkers (docs/fuzzing.md).
// Built only with -DFUNMEM_LIBFUZZER=ON and clang (scripts/fuzz-parser).
// Each input is parsed as FUN and as FUNMEM; what parses is type-checked, its
// diagnostics are formatted, and it must survive the round trip parse(print(p)) == p.
// A crash, a hang, a sanitizer report or a failed round trip is a finding.
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

using namespace funmem;

namespace {

void one(const std::string& text, Lang lang) {
  ParseResult r = parse_program(text, lang);
  const char* file = lang == Lang::Fun ? "in.fun" : "in.funmem";
  if (!r.program) {
    if (r.error) (void)format_diagnostic(*r.error, file, text);
    return;
  }
  for (const Diagnostic& d : typecheck(*r.program))
    (void)format_diagnostic(d, file, text);
  std::string printed = print_program(*r.program);
  ParseResult again = parse_program(printed, lang);
  if (!again.program || !(*again.program == *r.program)) {
    std::fprintf(stderr, "round trip failed; printed form:\n%s\n", printed.c_str());
    __builtin_trap();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  one(text, Lang::Fun);
  one(text, Lang::FunMem);
  return 0;
}
