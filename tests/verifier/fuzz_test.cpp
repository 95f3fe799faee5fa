// The program generator and the per-program checks of funmem-fuzz.
#include "tests/test_util.h"
#include "verifier/campaign.h"
#include "verifier/fuzz.h"
#include "verifier/gen.h"
#include "verifier/prover_check.h"

#include <catch2/catch.hpp>

#include <map>
#include <regex>
#include <set>

using namespace funmem;

TEST_CASE("the generator is deterministic per seed and varies across seeds", "[verifier][fuzz]") {
  std::set<std::string> texts;
  for (uint64_t k = 0; k < 20; ++k) {
    std::string a = generate_fun(program_seed(5, k));
    CHECK(a == generate_fun(program_seed(5, k)));
    texts.insert(a);
  }
  CHECK(texts.size() == 20);
  CHECK(program_seed(5, 0) != program_seed(6, 0));
}

TEST_CASE("the generator covers the syntax: assume, partial slices, LMAD updates, division, "
          "non-affine indices",
          "[verifier][fuzz]") {
  // Each construct turns up within the first 300 programs of a campaign, and the
  // programs that have one pass every check.
  const std::vector<std::pair<std::string, std::string>> wanted = {
      {"assume", R"(assume )"},
      {"partial slice", R"(\[1 : n - 1\])"},
      {"slice split at a counter", R"(\[(ix|j)\d+ : [nm] - (ix|j)\d+\])"},
      {"slice split at an expression", R"(\[(min\((ix|j)\d+ \+ 1, [nm]\)|\((ix|j)\d+ / 2\)) : )"},
      {"division in a size", R"(: \[[nm] - \(([nm]|ix\d+|j\d+) / 2\)\])"},
      {"LMAD update", R"( with \[0 \+ \{\()"},
      {"division", R"( / )"},
      {"remainder", R"( % )"},
      {"division by a variable", R"( [/%] ([nm]\)|max\())"},
      {"non-affine index", R"(\[\(+(ix|j)\d+ (/ 2|\+ \d\) %))"}};
  std::map<std::string, int> found;
  for (uint64_t k = 0; k < 300; ++k) {
    std::string text = generate_fun(program_seed(2, k));
    for (const auto& [what, pattern] : wanted)
      if (std::regex_search(text, std::regex(pattern)) && found[what]++ < 2) {
        FuzzOutcome o = fuzz_program(text);
        INFO(what << "\n" << text << o.check << ": " << o.detail);
        CHECK(o.ok);
      }
  }
  for (const auto& [what, pattern] : wanted) {
    INFO(what);
    CHECK(found[what] > 0);
  }
}

TEST_CASE("generated programs pass every check", "[verifier][fuzz]") {
  GenOptions small;
  small.max_stmts = 3;
  small.boundary_percent = 0;
  for (uint64_t k = 0; k < 25; ++k) {
    std::string text = generate_fun(program_seed(11, k), small);
    FuzzOutcome o = fuzz_program(text);
    INFO(text);
    INFO(o.check + ": " + o.detail);
    REQUIRE(o.ok);
    CHECK(o.checks >= 5); // parse, round trip, typecheck, two data sets
  }
}

TEST_CASE("the smallest settings generate programs whose only result is a parameter",
          "[verifier][fuzz]") {
  // One statement, no nesting: some bodies are empty and return a parameter; the extra
  // results were once drawn from the (then empty) locals, reading past the end of a
  // vector (a crash of `funmem-fuzz --max-stmts 3 --max-depth 1`).
  GenOptions tiny;
  tiny.max_stmts = 1;
  tiny.max_depth = 0;
  tiny.max_size = 1;
  int without_locals = 0;
  for (uint64_t k = 0; k < 3000; ++k) {
    std::string text = generate_fun(program_seed(1, k), tiny);
    if (text.find("  let ") == std::string::npos) {
      ++without_locals;
      FuzzOutcome o = fuzz_program(text);
      INFO(text << o.check << ": " << o.detail);
      CHECK(o.ok);
    }
  }
  CHECK(without_locals >= 3);
}

TEST_CASE("the checks catch a broken program", "[verifier][fuzz]") {
  const std::string good = "def f (n : i64) (xs : [n]i64) : ([n]i64) =\n"
                           "  let (ys : [n]i64) = kernel i < n do\n"
                           "    let v = xs[i]\n"
                           "    in (v)\n"
                           "  in (ys)\n"
                           "-- input: n=3\n"
                           "-- expect: valid\n";
  CHECK(fuzz_program(good).ok);
  // An index one past the end: the value semantics fails on every data set.
  std::string oob = good;
  oob.replace(oob.find("xs[i]"), 5, "xs[n]");
  FuzzOutcome o = fuzz_program(oob);
  CHECK_FALSE(o.ok);
  CHECK(o.check == "validity");
  CHECK(o.detail.find("out of bounds") != std::string::npos);
  // A type error.
  std::string bad_type = good;
  bad_type.replace(bad_type.find("([n]i64) ="), 10, "([n]f64) =");
  FuzzOutcome t = fuzz_program(bad_type);
  CHECK_FALSE(t.ok);
  CHECK(t.check == "typecheck");
  // A parse error.
  FuzzOutcome p = fuzz_program("def f (n : i64) : (i64) = in (");
  CHECK_FALSE(p.ok);
  CHECK(p.check == "parse");
}

TEST_CASE("shrinking ends when a literal fits every type it is used at", "[verifier][fuzz]") {
  // `s` is used only as `s <= abs(s)`, which type-checks for every element type: the
  // shrinker once replaced `0` by `0.5` and back for ever (funmem-fuzz --seed 1 --broken
  // sc-no-overlap hung). The bounds error keeps the program failing throughout.
  const std::string text = "def f (n : i64) (xs : [n]i64) : ([n]i64) =\n"
                           "  let s = 0\n"
                           "  let (ys : [n]i64) = if s <= abs(s) then\n"
                           "      let (zs : [n]i64) = kernel i < n do\n"
                           "          let v = xs[n]\n"
                           "          in (v)\n"
                           "      in (zs)\n"
                           "    else\n"
                           "      let (ws : [n]i64) = copy xs\n"
                           "      in (ws)\n"
                           "  in (ys)\n"
                           "-- input: n=2\n"
                           "-- expect: valid\n";
  FuzzOutcome o = fuzz_program(text);
  REQUIRE_FALSE(o.ok);
  int steps = 0;
  std::string small = shrink(text, o, &steps);
  CHECK(fuzz_program(small).check == o.check);
  // The `if` goes (the branch the failure is in kept), and with it the only use of s; a
  // literal is never replaced by another on the way.
  CHECK(small.find(" if ") == std::string::npos);
  CHECK(small.find("copy xs") == std::string::npos);
  CHECK(small.find("xs[n]") != std::string::npos);
  CHECK(small.find("let s = 0.5") == std::string::npos);
  CHECK(small.find("let s = 0i32") == std::string::npos);
  CHECK(small.find("-- input: n=1\n") != std::string::npos);
}

TEST_CASE("shrinking drops what the failure does not need", "[verifier][fuzz]") {
  const std::string text = "def f (n : i64) (m : i64) (xs : [n]i64) : ([n]i64) =\n"
                           "  let (zs : [m]i64) = iota m\n"
                           "  let (ys : [n]i64) = kernel i < n do\n"
                           "    let w = zs[0]\n"
                           "    let v = xs[n]\n"
                           "    in (v)\n"
                           "  let (us : [m]i64) = copy zs\n"
                           "  in (ys)\n"
                           "-- input: n=3 m=2\n"
                           "-- input: n=4 m=3\n"
                           "-- expect: valid\n";
  FuzzOutcome o = fuzz_program(text);
  REQUIRE_FALSE(o.ok);
  int steps = 0;
  std::string small = shrink(text, o, &steps);
  CHECK(steps > 0);
  CHECK(fuzz_program(small).check == "validity");
  CHECK(small.find("copy zs") == std::string::npos);
  CHECK(small.find("let w") == std::string::npos);
  CHECK(small.find("-- input: n=1 m=1\n") != std::string::npos);
  CHECK(small.find("n=4") == std::string::npos);
}

TEST_CASE("the operands of a scalar expression", "[verifier][fuzz]") {
  using V = std::vector<std::string>;
  CHECK(expression_operands("abs(s3) - s3") == V{"abs(s3)", "s3"});
  CHECK(expression_operands("min(n, m + 1)") == V{"n", "m + 1"});
  CHECK(expression_operands("!(n >= 1 || c)") == V{"n >= 1 || c"});
  CHECK(expression_operands("i64(s3 + s3)") == V{"s3 + s3"});
  CHECK(expression_operands("n").empty());
  CHECK(expression_operands("2.5f32").empty());
  CHECK(expression_operands("let x = 1").empty());
}

namespace {

/// `text` fails validity with a run-time error of the value semantics (a bounds error);
/// its shrunk form fails the same way.
std::string shrunk_bounds_failure(const std::string& text) {
  FuzzOutcome o = fuzz_program(text);
  REQUIRE_FALSE(o.ok);
  REQUIRE(o.check == "validity");
  REQUIRE(o.kind == "value semantics: bounds");
  const std::string small = shrink(text, o);
  const FuzzOutcome s = fuzz_program(small);
  CHECK(s.check == "validity");
  CHECK(s.kind == "value semantics: bounds");
  return small;
}

} // namespace

TEST_CASE("shrinking simplifies expressions to the operands the failure needs",
          "[verifier][fuzz]") {
  // s = abs(n) + (n * 2 - n) is out of bounds; so is abs(n), and so is n, but not a
  // literal 0. The assumption keeps one side of its conjunction.
  const std::string text = "def f (n : i64) (xs : [n]i64) : ([n]i64) =\n"
                           "  assume n >= 1 && n <= 50\n"
                           "  let s = abs(n) + (n * 2 - n)\n"
                           "  let (ys : [n]i64) = kernel i < n do\n"
                           "      let v = xs[s]\n"
                           "      in (v)\n"
                           "  in (ys)\n"
                           "-- input: n=2\n"
                           "-- expect: valid\n";
  const std::string small = shrunk_bounds_failure(text);
  CHECK(small.find("  let s = n\n") != std::string::npos);
  CHECK(small.find("&&") == std::string::npos);
  CHECK(small.find("assume n") != std::string::npos);
}

TEST_CASE("the simpler forms of a statement's sub-expressions", "[verifier][fuzz]") {
  using V = std::vector<std::string>;
  auto has = [](const V& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  // Index components: an operand or 0; a literal stays.
  V idx = simpler_expressions("    let v = xs[i + 1, 0 : n]");
  CHECK(has(idx, "    let v = xs[i, 0 : n]"));
  CHECK(has(idx, "    let v = xs[1, 0 : n]"));
  CHECK(has(idx, "    let v = xs[0, 0 : n]"));
  CHECK(has(idx, "    let v = xs[i + 1, 0 : 0]"));
  CHECK(idx.size() == 4);
  // A call and a parenthesised expression inside an array statement; the pattern's
  // type is left alone.
  V call = simpler_expressions("  let (a : [n + m]i64) = replicate (n + m) max(2, (k * 3))");
  CHECK(has(call, "  let (a : [n + m]i64) = replicate n max(2, (k * 3))"));
  CHECK(has(call, "  let (a : [n + m]i64) = replicate m max(2, (k * 3))"));
  CHECK(has(call, "  let (a : [n + m]i64) = replicate (n + m) 2"));
  CHECK(has(call, "  let (a : [n + m]i64) = replicate (n + m) (k * 3)"));
  CHECK(has(call, "  let (a : [n + m]i64) = replicate (n + m) max(2, k)"));
  CHECK(has(call, "  let (a : [n + m]i64) = replicate (n + m) max(2, 3)"));
  CHECK(call.size() == 6);
  for (const std::string& l : call)
    CHECK(l.rfind("  let (a : [n + m]i64) = ", 0) == 0);
  // An update's index and an if's condition; an assumption.
  CHECK(simpler_expressions("  let (b : [n]i64) = a with [j - 1] = s") ==
        V{"  let (b : [n]i64) = a with [j] = s", "  let (b : [n]i64) = a with [1] = s",
          "  let (b : [n]i64) = a with [0] = s"});
  CHECK(simpler_expressions("  let (r : [n]i64) = if (m / n) == m then") ==
        V{"  let (r : [n]i64) = if m == m then", "  let (r : [n]i64) = if n == m then",
          "  let (r : [n]i64) = if (m / n) then", "  let (r : [n]i64) = if m then"});
  CHECK(simpler_expressions("  assume (n > 0) && c") == V{"  assume n && c", "  assume 0 && c"});
  // Nothing to simplify.
  CHECK(simpler_expressions("  let (a : [n]i64) = copy xs").empty());
  CHECK(simpler_expressions("  let (a : [n * m]i64) = f[0 + {(n : m)}]").empty());
  CHECK(simpler_expressions("  let (a : [n]i64) = f[m - 1 + {(n : m)}]") ==
        V{"  let (a : [n]i64) = f[m + {(n : m)}]", "  let (a : [n]i64) = f[1 + {(n : m)}]",
          "  let (a : [n]i64) = f[0 + {(n : m)}]"});
  CHECK(simpler_expressions("  let (g : [n * m]i64) = f with [m - 1 + {(n : m)}] = v").size() == 3);
  CHECK(simpler_expressions("  in (a, b)").empty());
  CHECK(simpler_expressions("def f (n : i64) : ([n]i64) =").empty());
}

TEST_CASE("dropping a result drops its type too", "[verifier][fuzz]") {
  const std::vector<std::string> ls = {
      "def f (n : i64) (xs : [n]i64) : ([n]i64, f32, [max(n, 1)]i64) =", "  let s = 1.5f32",
      "  in (xs, s, ys)", "-- input: n=2"};
  auto c = drop_one_result(ls);
  REQUIRE(c.size() == 3);
  CHECK(c[2][0] == "def f (n : i64) (xs : [n]i64) : (f32, [max(n, 1)]i64) =");
  CHECK(c[2][2] == "  in (s, ys)");
  CHECK(c[1][0] == "def f (n : i64) (xs : [n]i64) : ([n]i64, [max(n, 1)]i64) =");
  CHECK(c[1][2] == "  in (xs, ys)");
  CHECK(c[0][0] == "def f (n : i64) (xs : [n]i64) : ([n]i64, f32) =");
  CHECK(c[0][2] == "  in (xs, s)");
  CHECK(c[0][3] == "-- input: n=2");
  CHECK(drop_one_result({"def f (n : i64) : ([n]i64) =", "  in (xs)"}).empty());
}

TEST_CASE("shrinking drops results and simplifies indices", "[verifier][fuzz]") {
  // xs[i + n - 0 * i] is out of bounds, and so is xs[n]; the second result is not needed.
  const std::string text =
      "def f (n : i64) (c : bool) (d : bool) (xs : [n]i64) : ([n]i64, [n]i64) =\n"
      "  assume d\n"
      "  let (ys : [n]i64) = kernel i < n do\n"
      "      let v = xs[i + n - 0 * i]\n"
      "      in (v)\n"
      "  let (zs : [n]i64) = copy xs\n"
      "  in (ys, zs)\n"
      "-- input: n=3 c=true d=true\n"
      "-- expect: valid\n";
  const std::string small = shrunk_bounds_failure(text);
  INFO(small);
  CHECK(small.find("(xs : [n]i64) : ([n]i64) =\n") != std::string::npos);
  CHECK(small.find("copy xs") == std::string::npos);
  CHECK(small.find("  in (ys)\n") != std::string::npos);
  CHECK(small.find("xs[n]") != std::string::npos);
  // c is not needed, d is (the assumption would fail first).
  CHECK(small.find("-- input: n=1 c=false d=true\n") != std::string::npos);
}

TEST_CASE("keeping one branch of an if keeps a generated program valid", "[verifier][fuzz]") {
  GenOptions g;
  g.max_stmts = 3;
  g.max_depth = 1;
  g.boundary_percent = 0; // keeping a branch may change how a boundary data set ends
  int ifs = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const std::vector<std::string> ls = split_lines(generate_fun(seed, g));
    for (size_t i = 0; i < ls.size(); ++i) {
      if (ls[i].find(" = if ") == std::string::npos) continue;
      auto cands = keep_one_branch(ls, i);
      INFO("seed " << seed << " line " << i + 1);
      REQUIRE(cands.size() == 2);
      ++ifs;
      for (const auto& c : cands) {
        std::string text;
        for (const std::string& l : c)
          text += l + "\n";
        INFO(text);
        CHECK(c.size() < ls.size());
        FuzzOutcome o = fuzz_program(text);
        CHECK(o.ok);
      }
    }
  }
  CHECK(ifs > 20);
  CHECK(keep_one_branch({"  let s = 1"}, 0).empty());
}

TEST_CASE("lmads mode: correct prover answers pass, a broken SOSI step is caught and shrunk",
          "[verifier][fuzz][prover]") {
  for (uint64_t k = 0; k < 30; ++k) {
    LmadQuestion q = lmad_fuzz_question(program_seed(3, k));
    LmadFuzzOutcome o = fuzz_lmad(q);
    INFO(q.to_string() << "\n" << o.detail);
    CHECK(o.ok);
    CHECK(o.checks >= 2);
  }
  // -1 + {0, -3} + {0, 2, 4} contains 0, but no single stride separates the sets.
  LmadQuestion q;
  q.l1.offset = 7;
  q.l1.dims = {{2, 3}};
  q.l2.offset = -6;
  q.l2.dims = {{2, 1}, {4, -6}, {4, 4}};
  q.assignments.push_back({});
  CHECK(fuzz_lmad(q).ok);
  PassOptions broken;
  REQUIRE(set_broken_variant(broken, "sosi-no-cross"));
  LmadFuzzOutcome bad = fuzz_lmad(q, broken.sc.prover);
  int steps = 0;
  LmadQuestion small = shrink_lmad(q, &steps, broken.sc.prover);
  LmadFuzzOutcome still = fuzz_lmad(small, broken.sc.prover);
  CHECK_FALSE(bad.ok);
  CHECK(bad.detail.find("SOSI alone") != std::string::npos);
  CHECK_FALSE(still.ok);
  CHECK(steps > 0);
  CHECK(small.l1.dims.size() + small.l2.dims.size() < q.l1.dims.size() + q.l2.dims.size());
  CHECK(prove_corpus_entry(small).rfind("# expect: overlap\n", 0) == 0);
}

TEST_CASE("out-of-bounds programs end in a bounds error at every stage", "[verifier][fuzz]") {
  // The IMP stage used to lose the error when block merging put the array in a larger
  // block (corpus/regress/fuzz-oob-1-5.fun); to-imp now asserts every index. A third of
  // the programs give an update's bounds by an assume after the source's creation: they
  // must end with the assume in every stage.
  GenOptions oob;
  oob.out_of_bounds = true;
  oob.max_stmts = 2;
  oob.boundary_percent = 0;
  int late = 0;
  for (uint64_t k = 0; k < 10; ++k) {
    std::string text = generate_fun(program_seed(21, k), oob);
    bool assume = text.find("-- expect: error assume") != std::string::npos;
    late += assume;
    CHECK((assume || text.find("-- expect: error bounds") != std::string::npos));
    FuzzOutcome o = fuzz_program(text);
    INFO(text << o.check << ": " << o.detail);
    CHECK(o.ok);
  }
  CHECK(late >= 1);
  std::string regress =
      test::slurp(std::string(FUNMEM_SOURCE_DIR) + "/corpus/regress/fuzz-oob-1-5.fun");
  FuzzOutcome o = fuzz_program(regress);
  INFO(o.check << ": " << o.detail);
  CHECK(o.ok);
  CHECK(o.checks >= 8); // parse, round trip, types, and every stage of the data set
}

TEST_CASE("boundary data sets: every array given at the ends of its type, the expectation "
          "how the source ends, the rest of the campaign unchanged",
          "[verifier][fuzz]") {
  GenOptions none;
  none.boundary_percent = 0;
  GenOptions all;
  all.boundary_percent = 100;
  all.max_stmts = 3;
  std::map<std::string, int> expectations;
  int boundary = 0;
  for (uint64_t k = 0; k < 120; ++k) {
    const uint64_t seed = program_seed(3, k);
    const std::string text = generate_fun(seed);
    if (text.find(" xs=[") == std::string::npos) {
      // Without boundary values a program is what it was before they existed.
      CHECK(text == generate_fun(seed, none));
      continue;
    }
    ++boundary;
  }
  CHECK(boundary >= 15);
  CHECK(boundary <= 50);
  for (uint64_t k = 0; k < 60; ++k) {
    const std::string text = generate_fun(program_seed(4, k), all);
    std::smatch m;
    REQUIRE(std::regex_search(text, m, std::regex("-- expect: ([a-z ]+)\n")));
    ++expectations[m[1]];
    CHECK(std::regex_search(text, std::regex("-- input: n=[0-3] m=[0-3] c=(true|false) xs=\\[")));
    FuzzOutcome o = fuzz_program(text);
    INFO(text << o.check << ": " << o.detail);
    CHECK(o.ok);
  }
  // Most boundary programs still run to the end; sizes of 0 and large values end others.
  CHECK(expectations["valid"] >= 20);
  CHECK(expectations["error bounds"] >= 1);
  CHECK(expectations["valid"] < 60);
}

TEST_CASE("shrinking puts 0 in place of a boundary value the failure does not need",
          "[verifier][fuzz]") {
  // The overflow needs one large value: the other goes.
  const std::string text = "def fuzz (n : i64) (xs : [n]i64) : ([n]i64) =\n"
                           "  let (a : [n]i64) = kernel i < n do\n"
                           "    let (x : i64) = xs[i]\n"
                           "    let y = x + x\n"
                           "    in (y)\n"
                           "  in (a)\n"
                           "-- input: n=3 xs=[4611686018427387904, 9223372036854775807, -8]\n"
                           "-- expect: valid\n";
  FuzzOutcome o = fuzz_program(text);
  REQUIRE_FALSE(o.ok);
  int steps = 0;
  const std::string small = shrink(text, o, &steps);
  INFO(small);
  const bool a = small.find("9223372036854775807") != std::string::npos;
  const bool b = small.find("4611686018427387904") != std::string::npos;
  CHECK(a != b);
}

TEST_CASE("a campaign run in parts checks and counts what one run does", "[verifier][fuzz]") {
  CampaignOptions whole;
  whole.seed = 5;
  whole.count = 12;
  whole.jobs = 2;
  CampaignOptions a = whole, b = whole;
  a.count = b.count = 6;
  b.first = 6;
  CampaignResult rw = run_campaign(whole), ra = run_campaign(a), rb = run_campaign(b);
  CHECK(rw.done == 12);
  CHECK(ra.done + rb.done == 12);
  CHECK(ra.checks + rb.checks == rw.checks);
  std::map<std::string, int64_t> sum = ra.rules;
  for (const auto& [id, n] : rb.rules)
    sum[id] += n;
  CHECK(sum == rw.rules);
  CHECK(ra.rules != rw.rules); // the second part counts something of its own
}
