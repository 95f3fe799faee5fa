// Memory expansion and hoisting keep how a run ends (analysis/expand.h): an allocation
// leaves a kernel only when every array of its block is shown inside the thread's part
// (checked against enumeration of every concrete one-dimensional layout in a small
// block), when its size and the expanded size cannot fail before the kernel, and hoisting
// keeps allocations behind statements that fail first.
#include "analysis/expand.h"
#include "analysis/fact_bounds.h"
#include "analysis/point_facts.h"
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
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
      "a",         "b",         "c",         "a * b",     "a * a",        "b * c",
      "a * b * c", "a * a * b", "max(a, b)", "min(b, c)", "a * max(b, c)"};
  // Linear sides of facts between names: bounds a name takes from another's.
  const std::vector<std::string> sides = {"a", "b", "c", "b + 1", "c - 1", "b + c", "2 * a"};
  const std::vector<std::string> rels = {"<=", "<", ">=", ">", "=="};
  int proved = 0;
  for (int round = 0; round < 1200; ++round) {
    std::string text = "def f (a : i64) (b : i64) (c : i64) : (i64) =\n";
    const int nfacts = next(5);
    for (int k = 0; k < nfacts; ++k)
      if (next(3) == 0)
        text += "  assume " + sides[static_cast<size_t>(next(3))] + " " +
                rels[static_cast<size_t>(next(5))] + " " +
                sides[static_cast<size_t>(next(static_cast<int>(sides.size())))] + "\n";
      else
        text += "  assume " + terms[static_cast<size_t>(next(8))] + " " +
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
  CHECK(proved >= 150);
}

namespace {

/// A random goal over a, b, c: a sum of up to three terms with max / min / abs factors and
/// coefficients, compared with a constant; `next(n)` draws 0..n-1.
template <class Next> std::string random_goal(Next& next) {
  const std::vector<std::string> terms = {"a",
                                          "b * c",
                                          "max(a, b)",
                                          "min(b, c)",
                                          "a * max(b, c)",
                                          "max(a * b, c)",
                                          "min(a, c) * b",
                                          "abs(a - c)",
                                          "max(min(a, b), c)"};
  const std::vector<std::string> rels = {"<=", "<", ">=", ">", "==", "!="};
  std::string g;
  for (int k = 0, n = 1 + next(3); k < n; ++k)
    g += (k ? " + " : "") + std::to_string(next(7) - 3) + " * " +
         terms[static_cast<size_t>(next(static_cast<int>(terms.size())))];
  g += " " + rels[static_cast<size_t>(next(6))] + " " + std::to_string(next(13) - 6);
  if (next(4) == 0) g = "(" + g + ") || a " + rels[static_cast<size_t>(next(6))] + " 1";
  return g;
}

} // namespace

TEST_CASE("every goal without max / min that the solver tries instead of a goal implies it "
          "(against enumeration)",
          "[passes][expand][prover]") {
  uint64_t state = 777;
  auto next = [&](int n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state >> 33) % static_cast<uint64_t>(n));
  };
  int lowered_goals = 0;
  for (int round = 0; round < 600; ++round) {
    const std::string text = random_goal(next);
    Diagnostic err;
    auto goal = parse_fact(text, &err);
    REQUIRE(goal);
    for (const Formula& l : detail::lowered(*goal)) {
      ++lowered_goals;
      INFO(text << "  lowered: " << l.to_string());
      for (int64_t a = -4; a <= 4; ++a)
        for (int64_t b = -4; b <= 4; ++b)
          for (int64_t c = -4; c <= 4; ++c) {
            Env env{{"a", a}, {"b", b}, {"c", c}};
            auto lv = l.eval(env), gv = goal->eval(env);
            REQUIRE(lv);
            REQUIRE(gv);
            if (*lv) CHECK(*gv);
          }
    }
  }
  CHECK(lowered_goals >= 200);
}

TEST_CASE("128-bit evaluation of facts agrees with 64-bit evaluation where that answers, and "
          "answers where it overflows",
          "[passes][expand][prover]") {
  uint64_t state = 4242;
  auto next = [&](int n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state >> 33) % static_cast<uint64_t>(n));
  };
  const std::vector<int64_t> values = {0,
                                       1,
                                       -1,
                                       3,
                                       -4,
                                       1LL << 20,
                                       -(1LL << 31),
                                       1LL << 31,
                                       (1LL << 40) + 7,
                                       -(1LL << 62),
                                       INT64_MAX,
                                       INT64_MIN + 1};
  int agreed = 0, only_wide = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::string text = random_goal(next);
    Diagnostic err;
    auto goal = parse_fact(text, &err);
    REQUIRE(goal);
    Env env;
    for (const char* name : {"a", "b", "c"})
      env[name] = values[static_cast<size_t>(next(static_cast<int>(values.size())))];
    INFO(text << " at a=" << env["a"] << " b=" << env["b"] << " c=" << env["c"]);
    auto narrow = goal->eval(env);
    auto wide = detail::wide_holds(*goal, env);
    if (narrow) {
      // Every value here is below 2^120 in magnitude when 64 bits hold it.
      REQUIRE(wide);
      CHECK(*wide == *narrow);
      ++agreed;
    } else if (wide) {
      ++only_wide;
    }
  }
  CHECK(agreed >= 1000);
  CHECK(only_wide >= 100);
  // Exact beyond 64 bits: 2^32 * 2^32 = 2^64 > 2^63 - 1.
  Diagnostic err;
  auto big = parse_fact("a * b > 9223372036854775807", &err);
  REQUIRE(big);
  const Env env{{"a", 1LL << 32}, {"b", 1LL << 32}};
  CHECK_FALSE(big->eval(env));
  CHECK(detail::wide_holds(*big, env) == std::optional<bool>(true));
  CHECK(detail::wide_holds(*big, Env{{"a", 1LL << 31}, {"b", 1LL << 31}}) ==
        std::optional<bool>(false));
}

TEST_CASE("bounds of a factor of a bounded product and a name's linear bounds in its place "
          "prove exactly what holds (against enumeration)",
          "[passes][expand][prover]") {
  struct Case {
    std::vector<std::string> facts;
    std::string goal;
    bool proved;
  };
  const std::vector<Case> cases = {
      // a * b <= 6 bounds a only where b >= 1.
      {{"a >= 0", "b >= 0", "a * b <= 6"}, "a <= 6", false},
      {{"a >= 0", "b >= 2", "a * b <= 6"}, "a <= 3", true},
      {{"a >= 0", "b >= 2", "a * b <= 6"}, "a <= 2", false},
      // ... and only where a >= 0.
      {{"b >= 2", "a * b <= 6"}, "a <= 3", true},
      {{"b >= 2", "a * b <= 6"}, "a * a <= 9", false},
      {{"b >= 1", "a * a * b <= 36"}, "a * a <= 36", true},
      // LUD's internal blocks: (q - s - 1) * b * b, with s < q - 1.
      {{"q > 1", "b > 1", "b * b * q * q <= 400", "s >= 0", "s < q - 1"},
       "b * b * q - b * b * s - b * b >= 0",
       true},
      {{"q > 1", "b > 1", "b * b * q * q <= 400", "s >= 0", "s < q - 1"},
       "b * b * q - b * b * s - b * b <= 200",
       true},
      {{"q > 1", "b > 1", "b * b * q * q <= 400", "s >= 0", "s < q - 1"},
       "b * b * q - b * b * s - b * b > 0",
       true},
      {{"q > 1", "b > 1", "b * b * q * q <= 400", "s >= 0", "s < q"},
       "b * b * q - b * b * s - b * b > 0",
       false},
      // A linear bound in place of a name, with the sign of its coefficient.
      {{"s >= 0", "s < q"}, "q - s >= 1", true},
      {{"s >= 0", "s < q"}, "q - s >= 2", false},
      {{"x >= 0", "x <= y", "c <= -1"}, "c * x >= c * y", true},
      {{"x >= 0", "x <= y", "c <= -1"}, "c * x <= c * y", false},
      {{"x >= 0", "x <= y", "c >= -1"}, "c * x >= c * y", false},
      // Refuted by the bounds: not proved, and Z3 not asked.
      {{"b > 1"}, "b <= 1", false},
  };
  for (const Case& c : cases) {
    std::set<std::string> names;
    std::string goal_text = c.goal;
    Diagnostic err;
    auto goal = parse_fact(goal_text, &err);
    REQUIRE(goal);
    for (const std::string& v : goal->free_vars())
      names.insert(v);
    std::vector<Formula> facts;
    for (const std::string& f : c.facts) {
      auto parsed = parse_fact(f, &err);
      REQUIRE(parsed);
      facts.push_back(*parsed);
      for (const std::string& v : parsed->free_vars())
        names.insert(v);
    }
    std::string text = "def f";
    for (const std::string& v : names)
      text += " (" + v + " : i64)";
    text += " : (i64) =\n";
    for (const std::string& f : c.facts)
      text += "  assume " + f + "\n";
    text += "  let z = 0\n  in (z)\n";
    Program p = parse_funmem(text);
    REQUIRE(typecheck(p).empty());
    PointFacts pf(p.def);
    for (const Stmt& s : p.def.body.stmts)
      pf.after(s);
    INFO(text << "goal: " << c.goal);
    CHECK(pf.proves(*goal) == c.proved);
    // Enumeration over -8..20 for each name: a proved goal holds everywhere the facts
    // do; a goal expected unproved fails somewhere.
    const std::vector<std::string> vars(names.begin(), names.end());
    bool fails_somewhere = false;
    std::vector<int64_t> vals(vars.size(), -8);
    for (;;) {
      Env env;
      for (size_t k = 0; k < vars.size(); ++k)
        env[vars[k]] = vals[k];
      if (all_hold(facts, env) && !*goal->eval(env)) fails_somewhere = true;
      size_t k = 0;
      while (k < vals.size() && ++vals[k] > 20)
        vals[k++] = -8;
      if (k == vals.size()) break;
    }
    CHECK(fails_somewhere == !c.proved);
  }
}
