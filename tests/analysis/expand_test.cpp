// Allocation hoisting and memory expansion (analysis/expand.h): both layouts keep every
// FUN corpus program valid and race-free with no allocation left inside kernels, the GPU
// layout interleaves the threads, allocations sized by the thread index are refused, and
// loop memory parameters passed on unchanged are dropped first.
#include "analysis/ast_util.h"
#include "analysis/expand.h"
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"
#include "tests/analysis/pass_util.h"

#include "tests/corpus_util.h"

#include <catch2/catch.hpp>

#include <sstream>

#include <filesystem>
#include <functional>

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
  test::PassResult m = test::run_pass("fun-to-funmem", *r.program);
  REQUIRE(m.program);
  return *m.program;
}

} // namespace

TEST_CASE("expand (both layouts) keeps every FUN corpus program valid", "[passes][expand]") {
  int programs = 0, expanded = 0;
  for (const test::CorpusProgram& c : test::well_typed_corpus(Lang::Fun)) {
    const Program& prog = c.program;
    INFO(c.path.string());
    test::PassResult m = test::run_pass("fun-to-funmem", prog);
    REQUIRE(m.program);
    for (const char* pass : {"expand", "expand-cpu"}) {
      test::PassResult x = test::run_pass(pass, *m.program);
      INFO(pass << ": " << x.error << x.report);
      REQUIRE(x.program);
      // Every allocation kept in a kernel is one the report names with its reason (a
      // block a loop body returns as a value).
      size_t refused = 0;
      std::istringstream lines(x.report);
      for (std::string line; std::getline(lines, line);)
        if (line.find_first_not_of(' ') != std::string::npos &&
            line.compare(line.find_first_not_of(' '), 8, "refused ") == 0)
          ++refused;
      CHECK(kernel_allocs(x.program->def.body, false) == static_cast<int>(refused));
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
  // xs bounds n * m (an input array has at most 2^28 elements): the expanded size cannot
  // overflow.
  Program p = funmem_of("def f (n : i64) (m : i64) (xs : [n][m]i64) : ([n]i64) =\n"
                        "  let (r : [n]i64) = kernel i < n do\n"
                        "    let (t : [m]i64) = iota m\n    let x = t[0]\n    in (x)\n"
                        "  in (r)");
  ExpandReport rep;
  Program gpu = expand_memory(p, ExpandLayout::Gpu, &rep);
  CHECK(rep.expanded == 1);
  std::string g = print_program(gpu);
  INFO(g);
  CHECK(g.find("alloc n * m") != std::string::npos);
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

TEST_CASE("loop memory parameters passed on unchanged are dropped, others kept",
          "[passes][expand][ast]") {
  auto funmem = [](const std::string& text) {
    ParseResult r = parse_program(text, Lang::FunMem);
    INFO(text);
    REQUIRE(r.program);
    return *r.program;
  };
  auto loop_params = [](const Program& p) {
    std::vector<size_t> n;
    std::function<void(const Body&)> walk = [&](const Body& b) {
      for (const Stmt& s : b.stmts)
        if (const auto* l = std::get_if<SLet>(&s.node)) {
          if (const auto* lp = std::get_if<ELoop>(&l->exp.node)) {
            n.push_back(lp->params.size());
            walk(lp->body);
          }
          if (const auto* k = std::get_if<EKernel>(&l->exp.node)) walk(k->body);
        }
    };
    walk(p.def.body);
    return n;
  };
  auto same_results = [](const Program& a, const Program& b, const std::string& input) {
    Diagnostic d;
    auto set = parse_input_set(input, &d);
    REQUIRE(set);
    Inputs in = make_inputs(a.def, &*set, 1);
    RunResult x = run_program(a, Semantics::Heap, in), y = run_program(b, Semantics::Heap, in);
    REQUIRE_FALSE(x.error);
    REQUIRE_FALSE(y.error);
    CHECK(y.races.empty());
    CHECK_FALSE(compare_results(x.results, y.results));
  };
  SECTION("a loop updating its array in place: the parameter and the result are the block") {
    // Futhark's map4 after fun-to-funmem: the loop starts from c in c_mem.
    Program p = funmem(
        "def main (n : i64) (xs_mem : mem) (xs : [n]i64 @xs_mem -> R(n)) : (mem, [n][n]i64) =\n"
        "  let (r_mem : mem) = alloc n * n\n"
        "  let (r : [n][n]i64 @r_mem -> R(n, n)) = kernel j < n do\n"
        "    let (c_mem : mem) = alloc n\n"
        "    let (c : [n]i64 @c_mem -> R(n)) = copy xs\n"
        "    let (acc_mem : mem) (acc : [n]i64 @acc_mem -> R(n)) = loop (a_mem : mem)\n"
        "        (a : [n]i64 @a_mem -> R(n)) = (c_mem, c) for i < n do\n"
        "      let (v : i64) = a[i]\n"
        "      let w = v * i + j\n"
        "      let (a2 : [n]i64 @a_mem -> R(n)) = a with [i] = w\n"
        "      in (a_mem, a2)\n"
        "    in (acc)\n"
        "  in (r_mem, r)\n");
    Program q = p;
    q.def = drop_invariant_mem_params(p.def);
    std::string text = print_program(q);
    INFO(text);
    CHECK(typecheck(q).empty());
    CHECK(loop_params(q) == std::vector<size_t>{1});
    CHECK(text.find("a_mem") == std::string::npos);
    CHECK(text.find("acc_mem") == std::string::npos);
    CHECK(text.find("(acc : [n]i64 @c_mem -> R(n)) = loop (a : [n]i64 @c_mem -> R(n)) = (c)") !=
          std::string::npos);
    same_results(p, q, "n=3 xs=[1, 2, 3]");
    // And memory expansion can now take c_mem out of the kernel.
    ExpandReport rep;
    Program x = expand_memory(p, ExpandLayout::Gpu, &rep);
    CHECK(rep.refused.empty());
    CHECK(kernel_allocs(x.def.body, false) == 0);
    same_results(p, x, "n=3 xs=[1, 2, 3]");
  }
  SECTION("a loop swapping two blocks, or returning a fresh one, keeps its parameters") {
    const char* swap =
        "def main (n : i64) (m : i64) (x_mem : mem) (x : [n]i64 @x_mem -> R(n)) :\n"
        "    (mem, [n]i64) =\n"
        "  let (y_mem : mem) = alloc n\n"
        "  let (y : [n]i64 @y_mem -> R(n)) = copy x\n"
        "  let (p_mem : mem) (p : [n]i64 @p_mem -> R(n)) (q_mem : mem) (q : [n]i64 @q_mem -> "
        "R(n)) =\n"
        "    loop (a_mem : mem) (a : [n]i64 @a_mem -> R(n)) (b_mem : mem) (b : [n]i64 @b_mem -> "
        "R(n)) = (x_mem, x, y_mem, y) for t < m do\n"
        "      let (v : i64) = a[0]\n"
        "      let w = v + t\n"
        "      let (b2 : [n]i64 @b_mem -> R(n)) = b with [0] = w\n"
        "      in (b_mem, b2, a_mem, a)\n"
        "  let (r_mem : mem) = alloc n\n"
        "  let (r : [n]i64 @r_mem -> R(n)) = copy p\n"
        "  in (r_mem, r)\n";
    const char* fresh =
        "def main (n : i64) (m : i64) (x_mem : mem) (x : [n]i64 @x_mem -> R(n)) :\n"
        "    (mem, [n]i64) =\n"
        "  let (p_mem : mem) (p : [n]i64 @p_mem -> R(n)) = loop (a_mem : mem) (a : [n]i64 "
        "@a_mem -> R(n)) = (x_mem, x) for t < m do\n"
        "    let (b_mem : mem) = alloc n\n"
        "    let (b : [n]i64 @b_mem -> R(n)) = copy a\n"
        "    in (b_mem, b)\n"
        "  let (r_mem : mem) = alloc n\n"
        "  let (r : [n]i64 @r_mem -> R(n)) = copy p\n"
        "  in (r_mem, r)\n";
    for (const char* text : {swap, fresh}) {
      Program p = funmem(text);
      REQUIRE(typecheck(p).empty());
      Program q = p;
      q.def = drop_invariant_mem_params(p.def);
      CHECK(print_program(q) == print_program(p));
    }
  }
}
