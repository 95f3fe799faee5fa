// Allocation hoisting and memory expansion (analysis/expand.h): both layouts keep every
// FUN corpus program valid and race-free with no allocation left inside kernels, the GPU
// layout interleaves the threads, and allocations sized by the thread index are refused.
#include "analysis/expand.h"
#include "analysis/passes.h"
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

int kernel_allocs(const Body& b, bool inside) {
  int n = 0;
  for (const Stmt& s : b.stmts)
    if (const auto* l = std::get_if<SLet>(&s.node)) {
      if (inside && std::holds_alternative<EAlloc>(l->exp.node)) ++n;
      if (const auto* k = std::get_if<EKernel>(&l->exp.node)) n += kernel_allocs(k->body, true);
      if (const auto* lp = std::get_if<ELoop>(&l->exp.node)) n += kernel_allocs(lp->body, inside);
      if (const auto* i = std::get_if<EIf>(&l->exp.node))
        n += kernel_allocs(i->then_body, inside) + kernel_allocs(i->else_body, inside);
    }
  return n;
}

Program funmem_of(const std::string& text) {
  ParseResult r = parse_program(text, Lang::Fun);
  REQUIRE(r.program);
  PassResult m = run_pass("fun-to-funmem", *r.program);
  REQUIRE(m.program);
  return *m.program;
}

} // namespace

TEST_CASE("expand (both layouts) keeps every FUN corpus program valid", "[passes][expand]") {
  int programs = 0, expanded = 0;
  for (const test::CorpusProgram& c : test::well_typed_corpus(Lang::Fun)) {
    const Program& prog = c.program;
    INFO(c.path.string());
    PassResult m = run_pass("fun-to-funmem", prog);
    REQUIRE(m.program);
    for (const char* pass : {"expand", "expand-cpu"}) {
      PassResult x = run_pass(pass, *m.program);
      INFO(pass << ": " << x.error << x.report);
      REQUIRE(x.program);
      CHECK(kernel_allocs(x.program->def.body, false) == 0);
      expanded += kernel_allocs(m.program->def.body, false);
      for (const InputSet& set : prog.inputs) {
        auto maybe = test::try_inputs(prog.def, &set, 1);
        if (!maybe) continue;
        const Inputs& in = *maybe;
        RunResult v = run_program(prog, Semantics::Value, in);
        RunResult h = run_program(*x.program, Semantics::Heap, in);
        INFO(print_program(*x.program));
        CHECK(v.error.has_value() == h.error.has_value());
        CHECK(h.races.empty());
        if (!v.error && !h.error) CHECK_FALSE(compare_results(v.results, h.results));
      }
    }
    ++programs;
  }
  CHECK(programs >= 10);
  CHECK(expanded >= 4);
}

TEST_CASE("the GPU layout interleaves threads, the CPU layout gives each a chunk",
          "[passes][expand]") {
  Program p = funmem_of("def f (n : i64) (m : i64) : ([n]i64) =\n"
                        "  let (r : [n]i64) = kernel i < n do\n"
                        "    let (t : [m]i64) = iota m\n    let x = t[0]\n    in (x)\n"
                        "  in (r)");
  ExpandReport rep;
  Program gpu = expand_memory(p, ExpandLayout::Gpu, &rep);
  CHECK(rep.expanded == 1);
  std::string g = print_program(gpu);
  INFO(g);
  CHECK(g.find("alloc m * n") != std::string::npos);
  CHECK(g.find("-> i + {(m : n)}") != std::string::npos);
  std::string c = print_program(expand_memory(p, ExpandLayout::Cpu));
  INFO(c);
  CHECK(c.find("-> i * m + {(m : 1)}") != std::string::npos);
}

TEST_CASE("expand refuses allocations sized by the thread index", "[passes][expand]") {
  Program p = funmem_of("def f (n : i64) : ([n]i64) =\n"
                        "  let (r : [n]i64) = kernel i < n do\n"
                        "    let k = i + 1\n"
                        "    let (t : [k]i64) = iota k\n    let x = t[0]\n    in (x)\n"
                        "  in (r)");
  ExpandReport rep;
  Program out = expand_memory(p, ExpandLayout::Gpu, &rep);
  REQUIRE(rep.refused.size() == 1);
  CHECK(rep.refused[0].find("computed in the kernel body") != std::string::npos);
  CHECK(kernel_allocs(out.def.body, false) == 1);
  CHECK(typecheck(out).empty());
}
