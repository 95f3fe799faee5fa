// Memory block merging (analysis/merge.h): the corpus programs built for it lose the
// allocations they should, stay valid and race-free, and need less peak memory.
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "tests/analysis/pass_util.h"
#include "verifier/check.h"

#include "tests/test_util.h"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace funmem;
namespace fs = std::filesystem;

namespace {

int allocs(const Body& b);

int allocs_in(const Exp& e) {
  if (const auto* k = std::get_if<EKernel>(&e.node)) return allocs(k->body);
  if (const auto* l = std::get_if<ELoop>(&e.node)) return allocs(l->body);
  if (const auto* i = std::get_if<EIf>(&e.node)) return allocs(i->then_body) + allocs(i->else_body);
  return std::holds_alternative<EAlloc>(e.node) ? 1 : 0;
}

int allocs(const Body& b) {
  int n = 0;
  for (const Stmt& s : b.stmts)
    if (const auto* l = std::get_if<SLet>(&s.node)) n += allocs_in(l->exp);
  return n;
}

} // namespace

TEST_CASE("merge reduces the allocations of the programs built for it", "[passes][merge]") {
  struct Case {
    const char* file;
    int before, after;
  };
  for (const Case& c : {Case{"merge-sequential-temps.fun", 3, 2}, Case{"merge-in-kernel.fun", 3, 2},
                        Case{"merge-element-types.fun", 4, 3}}) {
    fs::path f = fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "passes" / c.file;
    INFO(f.string());
    ParseResult r = parse_program(test::slurp(f), Lang::Fun);
    REQUIRE(r.program);
    test::PassResult mem = test::run_pass("fun-to-funmem", *r.program);
    REQUIRE(mem.program);
    test::PassResult merged = test::run_pass("merge", *mem.program);
    INFO(merged.error);
    REQUIRE(merged.program);
    INFO(print_program(*merged.program));
    CHECK(allocs(mem.program->def.body) == c.before);
    CHECK(allocs(merged.program->def.body) == c.after);
    // Valid and race-free on every data set, with no more peak memory than before.
    for (const InputSet& set : r.program->inputs) {
      Inputs in = make_inputs(r.program->def, &set, 1);
      RunResult v = run_program(*r.program, Semantics::Value, in);
      RunResult h0 = run_program(*mem.program, Semantics::Heap, in);
      RunResult h1 = run_program(*merged.program, Semantics::Heap, in);
      REQUIRE_FALSE(v.error);
      REQUIRE_FALSE(h1.error);
      CHECK(h1.races.empty());
      CHECK_FALSE(compare_results(v.results, h1.results));
      CHECK(h1.stats.peak_bytes <= h0.stats.peak_bytes);
    }
  }
}

TEST_CASE("merge keeps blocks apart when their lives overlap", "[passes][merge]") {
  // a and b are both read by the last kernel: they must not share a block.
  ParseResult r =
      parse_program("def f (n : i64) (xs : [n]i64) : ([n]i64) =\n"
                    "  let (a : [n]i64) = kernel i < n do\n    let x = xs[i]\n    in (x)\n"
                    "  let (b : [n]i64) = kernel i < n do\n    let x = xs[i]\n"
                    "    let y = x + 1\n    in (y)\n"
                    "  let (c : [n]i64) = kernel i < n do\n    let x = a[i]\n"
                    "    let y = b[i]\n    let z = x * y\n    in (z)\n"
                    "  in (c)",
                    Lang::Fun);
  REQUIRE(r.program);
  test::PassResult mem = test::run_pass("fun-to-funmem", *r.program);
  REQUIRE(mem.program);
  test::PassResult merged = test::run_pass("merge", *mem.program);
  REQUIRE(merged.program);
  CHECK(allocs(merged.program->def.body) == 3);
  CHECK(merged.report.find("0 blocks merged") != std::string::npos);
}
