// fun-to-funmem (analysis/fun_to_funmem.h): the translation of thesis listing 6.2 is the
// thesis' FUNMEM listing; every FUN corpus program translates to a well-typed FUNMEM
// program whose heap semantics agrees with the FUN value semantics, race-free.
#include "analysis/fun_to_funmem.h"
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"

#include "tests/corpus_util.h"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace funmem;
namespace fs = std::filesystem;

namespace {

Program load(const fs::path& p) {
  ParseResult r = parse_program(test::slurp(p), lang_of_path(p.string()));
  INFO(p.string());
  REQUIRE(r.program);
  return *r.program;
}

} // namespace

TEST_CASE("fun-to-funmem turns listing 6.2 (FUN) into listing 6.2 (FUNMEM)", "[passes]") {
  fs::path dir = fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "thesis";
  Program fun = load(dir / "listing-6.2-antidiag.fun");
  Program mem = load(dir / "listing-6.2-antidiag.funmem");
  FunToFunmemReport rep;
  auto out = fun_to_funmem(fun, &rep);
  REQUIRE(out);
  INFO(print_program(*out));
  CHECK(out->def == mem.def);
  CHECK(rep.allocations == 1);
  CHECK(rep.copies == 0); // the result is the updated parameter, row-major already
  CHECK(rep.mem_params == 1);
}

TEST_CASE("results are copied to row-major only when they are not", "[passes]") {
  ParseResult r = parse_program("def f (n : i64) (xs : [n][n]i64) : ([n][n]i64, [n]i64, [n]i64) =\n"
                                "  let (t : [n][n]i64) = transpose xs\n"
                                "  let (c : [n]i64) = xs[0 : n, 1]\n"
                                "  let (k : [n]i64) = kernel i < n do\n    in (i)\n"
                                "  in (t, c, k)",
                                Lang::Fun);
  REQUIRE(r.program);
  FunToFunmemReport rep;
  auto out = fun_to_funmem(*r.program, &rep);
  REQUIRE(out);
  INFO(print_program(*out));
  CHECK(typecheck(*out).empty());
  CHECK(rep.copies == 2); // the transposed view and the column; not the kernel result
  CHECK(out->def.rets.size() == 6);
  Diagnostic d;
  auto set = parse_input_set("n=3 xs=iota", &d);
  Inputs in = make_inputs(r.program->def, &*set, 1);
  RunResult v = run_program(*r.program, Semantics::Value, in);
  RunResult h = run_program(*out, Semantics::Heap, in);
  REQUIRE_FALSE(v.error);
  REQUIRE_FALSE(h.error);
  CHECK_FALSE(compare_results(v.results, h.results));
}

TEST_CASE("every FUN corpus program translates validly", "[passes][corpus]") {
  int translated = 0;
  for (const test::CorpusProgram& c : test::well_typed_corpus(Lang::Fun)) {
    const Program& prog = c.program;
    INFO(c.path.string());
    std::string why;
    auto out = fun_to_funmem(prog, nullptr, &why);
    INFO(why);
    REQUIRE(out);
    auto errs = typecheck(*out);
    INFO(print_program(*out) << (errs.empty() ? "" : errs[0].message));
    CHECK(errs.empty());
    // The printed translation parses back to itself (it is a FUNMEM file like any other).
    ParseResult again = parse_program(print_program(*out), Lang::FunMem);
    REQUIRE(again.program);
    CHECK(again.program->def == out->def);
    for (size_t k = 0; k < std::max<size_t>(prog.inputs.size(), 1); ++k) {
      const InputSet* set = prog.inputs.empty() ? nullptr : &prog.inputs[k];
      auto maybe = test::try_inputs(prog.def, set, k);
      if (!maybe) continue;
      const Inputs& in = *maybe;
      RunResult v = run_program(prog, Semantics::Value, in);
      RunResult h = run_program(*out, Semantics::Heap, in);
      CHECK(v.error.has_value() == h.error.has_value());
      // A source that runs out of resources has no end to reproduce, and a translation may
      // run out where the source ends with an error (docs/tools.md).
      if (v.error && h.error && v.error->kind != "resource" && h.error->kind != "resource")
        CHECK(v.error->kind == h.error->kind);
      CHECK(h.races.empty());
      if (!v.error && !h.error) CHECK_FALSE(compare_results(v.results, h.results));
    }
    ++translated;
  }
  CHECK(translated >= 10);
}
