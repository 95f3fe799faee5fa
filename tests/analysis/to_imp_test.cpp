// funmem-to-imp (analysis/to_imp.h): every FUN corpus program, after fun-to-funmem,
// merge and expand, becomes an IMP program whose results (memory blocks) hold, row-major,
// the FUN value semantics' results, with no race in its kernels.
#include "analysis/to_imp.h"
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/typecheck.h"
#include "tests/analysis/pass_util.h"

#include "tests/corpus_util.h"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace funmem;
namespace fs = std::filesystem;

TEST_CASE("to-imp keeps every FUN corpus program's results", "[passes][imp]") {
  int programs = 0;
  for (const test::CorpusProgram& c : test::well_typed_corpus(Lang::Fun)) {
    const Program& prog = c.program;
    INFO(c.path.string());
    Program cur = prog;
    for (const char* pass : {"fun-to-funmem", "merge", "expand"}) {
      test::PassResult pr = test::run_pass(pass, cur);
      INFO(pr.error);
      REQUIRE(pr.program);
      cur = *pr.program;
    }
    std::string why;
    ToImpReport rep;
    auto imp = funmem_to_imp(cur, &rep, &why);
    INFO(why);
    REQUIRE(imp);
    INFO(imp::print(*imp));
    for (const InputSet& set : prog.inputs) {
      auto maybe = test::try_inputs(prog.def, &set, 1);
      if (!maybe) continue;
      const Inputs& in = *maybe;
      RunResult v = run_program(prog, Semantics::Value, in);
      RunResult i = run_imp(*imp, imp_inputs(cur.def, in));
      if (v.error) {
        // Run-time errors (assume too: an IMP assert) must happen there too; a source
        // that runs out of resources accepts any end (docs/interpreters.md).
        if (v.error->kind != "resource") CHECK(i.error.has_value());
        continue;
      }
      INFO((i.error ? i.error->what() : ""));
      REQUIRE_FALSE(i.error);
      CHECK(i.races.empty());
      auto diff = compare_imp_results(v.results, i.results);
      INFO((diff ? *diff : ""));
      CHECK_FALSE(diff);
    }
    ++programs;
  }
  CHECK(programs >= 10);
}

TEST_CASE("to-imp: views cost nothing, kernels copy their results", "[passes][imp]") {
  fs::path f = fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "thesis" / "listing-6.2-antidiag.funmem";
  ParseResult r = parse_program(test::slurp(f), Lang::FunMem);
  REQUIRE(r.program);
  ToImpReport rep;
  auto imp = funmem_to_imp(*r.program, &rep);
  REQUIRE(imp);
  std::string text = imp::print(*imp);
  INFO(text);
  // The kernel writes x_mem[i]; the update copies x onto the anti-diagonal.
  CHECK(text.find("kernel i < 10 do") != std::string::npos);
  CHECK(text.find("t <- ys0_mem[9 * i + 9]") != std::string::npos);
  CHECK(text.find("x_mem[i] <- u") != std::string::npos);
  CHECK(rep.copies == 1);
  CHECK(rep.elided == 0);
}
