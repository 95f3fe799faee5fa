// Memory expansion and hoisting keep how a run ends (analysis/expand.h): an allocation
// leaves a kernel only when every array of its block is shown inside the thread's part
// (checked against enumeration of every concrete one-dimensional layout in a small
// block), when its size and the expanded size cannot fail before the kernel, and hoisting
// keeps allocations behind statements that fail first.
#include "analysis/expand.h"
#include "analysis/point_facts.h"
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace funmem;

namespace {

Program parse_funmem(const std::string& text) {
  ParseResult r = parse_program(text, Lang::FunMem);
  INFO(text);
  REQUIRE(r.program);
  return *r.program;
}

/// How a heap run ends: "results ..." or "KIND at LINE:COL".
std::string end_of(const Program& p, const std::string& input) {
  Diagnostic d;
  auto set = parse_input_set(input, &d);
  REQUIRE(set);
  Inputs in = make_inputs(p.def, &*set, 1);
  RunResult r = run_program(p, Semantics::Heap, in);
  if (r.error)
    return r.error->kind + " at " + std::to_string(r.error->pos.line) + ":" +
           std::to_string(r.error->pos.col);
  std::string out = "results";
  for (const Data& x : r.results)
    out += " " + x.to_string(64);
  return out;
}

} // namespace

TEST_CASE("expand takes a block out of a kernel exactly when its array stays inside the "
          "thread's part (every 1-d layout of a 4-element block)",
          "[passes][expand]") {
  int checked = 0, expanded = 0;
  for (int64_t off = -3; off <= 6; ++off)
    for (int64_t count = 0; count <= 4; ++count)
      for (int64_t stride = -3; stride <= 3; ++stride) {
        std::string lmad = std::to_string(off) + " + {(" + std::to_string(count) + " : " +
                           std::to_string(stride) + ")}";
        std::string text = "def f (n : i64) : (mem, [n]i64) =\n"
                           "  let (rm : mem) = alloc n\n"
                           "  let (r : [n]i64 @rm -> R(n)) = kernel i < n do\n"
                           "    let (zm : mem) = alloc 4\n"
                           "    let (z : [" +
                           std::to_string(count) + "]i64 @zm -> " + lmad + ") = replicate " +
                           std::to_string(count) +
                           " i\n"
                           "    let (s : i64) = loop (acc : i64) = (i) for q < " +
                           std::to_string(count) +
                           " do\n"
                           "      let (x : i64) = z[q]\n"
                           "      let y = acc * 3 + x\n"
                           "      in (y)\n"
                           "    in (s)\n"
                           "  in (rm, r)\n";
        INFO(text);
        Program p = parse_funmem(text);
        if (!typecheck(p).empty()) continue; // a layout the type checker refuses
        // Enumeration: the cells the array touches.
        bool inside = true;
        for (int64_t k = 0; k < count; ++k)
          inside = inside && off + k * stride >= 0 && off + k * stride < 4;
        for (ExpandLayout layout : {ExpandLayout::Gpu, ExpandLayout::Cpu}) {
          ExpandReport rep;
          Program x = expand_memory(p, layout, &rep);
          CHECK(typecheck(x).empty());
          CHECK((rep.expanded == 1) == inside);
          for (const char* input : {"n=3", "n=1", "n=0"})
            CHECK(end_of(x, input) == end_of(p, input));
        }
        ++checked;
        expanded += inside ? 1 : 0;
      }
  CHECK(checked >= 200);
  CHECK(expanded >= 40);
}

TEST_CASE("expand refuses a block whose size or expanded size may fail before the kernel",
          "[passes][expand]") {
  auto refusal = [](const std::string& text) {
    ExpandReport rep;
    Program p = parse_funmem(text);
    REQUIRE(typecheck(p).empty());
    expand_memory(p, ExpandLayout::Gpu, &rep);
    CHECK(rep.expanded == 0);
    return rep.refused.empty() ? std::string() : rep.refused[0];
  };
  auto kernel = [](const std::string& params, const std::string& before, const std::string& size,
                   const std::string& bound) {
    return "def f (n : i64) " + params + " : (mem, [" + bound + "]i64) =\n" + before +
           "  let (rm : mem) = alloc abs(" + bound +
           ")\n"
           "  let (r : [" +
           bound + "]i64 @rm -> R(" + bound + ")) = kernel i < " + bound +
           " do\n"
           "    let (zm : mem) = alloc " +
           size +
           "\n"
           "    let (z : [1]i64 @zm -> R(1)) = replicate 1 i\n"
           "    let (v : i64) = z[0]\n"
           "    in (v)\n"
           "  in (rm, r)\n";
  };
  SECTION("a division that may divide by zero") {
    CHECK(refusal(kernel("(d : i64)", "", "1 + 10 / d", "n")).find("computable") !=
          std::string::npos);
  }
  SECTION("a size that may be negative") {
    CHECK(refusal(kernel("(m : i64)", "", "m + 1", "n")).find("non-negative before") !=
          std::string::npos);
  }
  SECTION("a bound that may be negative") {
    CHECK(refusal(kernel("", "", "4", "n")).find("bound is not shown non-negative") !=
          std::string::npos);
  }
  SECTION("an expanded size that may overflow") {
    CHECK(refusal(kernel("(m : i64)", "  assume m >= 1 && n >= 0\n", "m", "n")).find("2^62") !=
          std::string::npos);
  }
  SECTION("with facts that bound them, the same allocations leave the kernel") {
    for (const std::string& text :
         {kernel("(d : i64)", "  assume d >= 1 && n >= 0 && n <= 1024\n", "1 + 10 / d", "n"),
          kernel("(m : i64)", "  assume m >= 0 && m <= 100 && n >= 0 && n <= 100\n", "m + 1",
                 "n")}) {
      ExpandReport rep;
      Program p = parse_funmem(text);
      INFO(text);
      REQUIRE(typecheck(p).empty());
      Program x = expand_memory(p, ExpandLayout::Gpu, &rep);
      CHECK(rep.expanded == 1);
      CHECK(typecheck(x).empty());
    }
  }
}

TEST_CASE("hoist moves an allocation above a statement that may fail only when the "
          "allocation cannot fail",
          "[passes][expand]") {
  const std::string head = "def f (n : i64) (d : i64) (am : mem) (a : [n]i64 @am -> R(n)) : "
                           "(mem, [n]i64) =\n";
  const std::string tail = "  let (z : [n]i64 @am -> R(n)) = a with [0] = x\n  in (am, z)\n";
  auto moved = [&](const std::string& mid) {
    int k = 0;
    Program p = parse_funmem(head + mid + tail);
    REQUIRE(typecheck(p).empty());
    Program h = hoist_allocs(p, &k);
    CHECK(end_of(h, "n=4 d=0") == end_of(p, "n=4 d=0"));
    CHECK(end_of(h, "n=4 d=2") == end_of(p, "n=4 d=2"));
    return k;
  };
  // A read that may fail, then an allocation that may divide by zero: no move.
  CHECK(moved("  let (x : i64) = a[n]\n  let (zm : mem) = alloc n / d\n") == 0);
  // A size that cannot fail passes the read.
  CHECK(moved("  let (x : i64) = a[n - 1]\n  let (zm : mem) = alloc n + 1\n") == 1);
  // A scalar statement that cannot fail is passed by any allocation.
  CHECK(moved("  let (x : i64) = 7\n  let (zm : mem) = alloc n / d\n") == 1);
  // Allocations keep their order: the second may not pass the first.
  CHECK(moved("  let (x : i64) = 7\n  let k = n - 10\n  let (ym : mem) = alloc k\n"
              "  let (zm : mem) = alloc 10 / d\n") == 0);
}

TEST_CASE("facts at a point: definitions, assumes and ranges, never floats, rebinding drops "
          "them",
          "[passes][expand]") {
  // Parsed only: the type checker refuses `let k` twice in one scope; sibling scopes
  // reuse names, and a walk meets them one after the other.
  Program p =
      parse_funmem("def f (n : i64) (h : f64) (xm : mem) (xs : [n]i64 @xm -> R(n)) : (i64) =\n"
                   "  assume h * h < h\n"
                   "  let k = n - 1\n"
                   "  let k2 = k + 1\n"
                   "  assume n >= 3\n"
                   "  let k = k + 5\n"
                   "  in (k)\n");
  PointFacts f(p.def);
  const Poly n = Poly::var("n"), k = Poly::var("k"), k2 = Poly::var("k2");
  CHECK(f.proves(ge(n, Poly(0))));                // a dimension
  CHECK(f.proves(le(n, Poly(int64_t{1} << 28)))); // an input array's size
  CHECK_FALSE(f.proves(ge(n, Poly(1))));
  f.after(p.def.body.stmts[0]); // a float fact: not taken (it has no integer solution)
  CHECK_FALSE(f.proves(Formula::cmp(Poly(0), Rel::Eq, Poly(1))));
  f.after(p.def.body.stmts[1]);
  f.after(p.def.body.stmts[2]);
  CHECK(f.proves(eq(k2, n)));
  f.after(p.def.body.stmts[3]);
  CHECK(f.proves(ge(k, Poly(2))));
  CHECK(f.safe(*mk_bin(BinOp::Div, mk_int(10), mk_var("k"))));
  CHECK_FALSE(f.safe(*mk_bin(BinOp::Div, mk_int(10), mk_bin(BinOp::Sub, mk_var("k"), mk_int(2)))));
  // `let k = k + 5` rebinds k: the facts on the old k go, and the definition, which
  // names the old k, is not taken (it would read k == k + 5).
  f.after(p.def.body.stmts[4]);
  CHECK_FALSE(f.proves(Formula::cmp(Poly(0), Rel::Eq, Poly(1))));
  CHECK_FALSE(f.proves(ge(k, Poly(2))));
  CHECK_FALSE(f.proves(eq(k2, n))); // it went through the old k
  CHECK(f.proves(ge(n, Poly(3))));  // facts without k stay
}

TEST_CASE("what the facts at a point prove holds at every small assignment that satisfies "
          "them (random facts and goals, against enumeration)",
          "[passes][expand][prover]") {
  // Facts: bounds on names and on products, definitions; goals: polynomials with products
  // and max / min, compared with constants. Every goal PointFacts proves must hold at
  // every assignment of -3..3 that satisfies the facts.
  uint64_t state = 12345;
  auto next = [&](int n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state >> 33) % static_cast<uint64_t>(n));
  };
  const std::vector<std::string> terms = {
      "a", "b", "c", "a * b", "a * a", "b * c", "max(a, b)", "min(b, c)", "a * max(b, c)"};
  const std::vector<std::string> rels = {"<=", "<", ">=", ">", "=="};
  int proved = 0;
  for (int round = 0; round < 400; ++round) {
    std::string text = "def f (a : i64) (b : i64) (c : i64) : (i64) =\n";
    const int nfacts = next(4);
    for (int k = 0; k < nfacts; ++k)
      text += "  assume " + terms[static_cast<size_t>(next(6))] + " " +
              rels[static_cast<size_t>(next(4))] + " " + std::to_string(next(7) - 3) + "\n";
    text += "  let d = a - 1\n  in (d)\n";
    Program p = parse_funmem(text);
    REQUIRE(typecheck(p).empty());
    PointFacts f(p.def);
    for (const Stmt& s : p.def.body.stmts)
      f.after(s);
    std::string goal_text = std::to_string(next(5) - 2) + " * " +
                            terms[static_cast<size_t>(next(static_cast<int>(terms.size())))] +
                            " + " +
                            terms[static_cast<size_t>(next(static_cast<int>(terms.size())))] + " " +
                            rels[static_cast<size_t>(next(5))] + " " + std::to_string(next(13) - 6);
    Diagnostic err;
    auto goal = parse_fact(goal_text, &err);
    REQUIRE(goal);
    if (!f.proves(*goal)) continue;
    ++proved;
    INFO(text << "goal: " << goal_text);
    for (int64_t a = -3; a <= 3; ++a)
      for (int64_t b = -3; b <= 3; ++b)
        for (int64_t c = -3; c <= 3; ++c) {
          Env env{{"a", a}, {"b", b}, {"c", c}, {"d", a - 1}};
          if (!all_hold(f.facts(), env)) continue;
          auto v = goal->eval(env);
          REQUIRE(v);
          CHECK(*v);
        }
  }
  CHECK(proved >= 40);
}
