// Tests of the non-overlap prover (analysis/prover.h) and its solver interface:
// the thesis' NW obligation with its proof, and soundness / completeness against brute
// force on random pairs. The number of random pairs is a parameter
// (FUNMEM_PROVER_PAIRS, FUNMEM_PROVER_SYMBOLIC), not a constant of the prover.
#include "analysis/prover.h"
#include "verifier/prover_check.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <functional>
#include <random>

#include <cstdlib>

using namespace funmem;

namespace {

int env_count(const char* name, int dflt) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : dflt;
}

SymLmad lmad(const std::string& text) {
  Diagnostic d;
  auto l = parse_sym_lmad(text, &d);
  INFO(text << ": " << d.message);
  REQUIRE(l.has_value());
  return *l;
}

std::vector<Formula> facts(const std::vector<std::string>& texts) {
  std::vector<Formula> out;
  for (auto& t : texts) {
    Diagnostic d;
    auto f = parse_fact(t, &d);
    INFO(t << ": " << d.message);
    REQUIRE(f.has_value());
    out.push_back(*f);
  }
  return out;
}

void report(const SoundnessReport& r) {
  for (size_t k = 0; k < r.failures.size() && k < 10; ++k)
    UNSCOPED_INFO(r.failures[k]);
  CHECK(r.failures.empty());
}

} // namespace

TEST_CASE("facts parse into formulas with C semantics", "[prover]") {
  Diagnostic d;
  CHECK_FALSE(parse_fact("n + 1", &d).has_value());
  CHECK(d.message.find("comparison") != std::string::npos);
  CHECK_FALSE(parse_fact("n < 1.5f32", &d).has_value());
  CHECK_FALSE(parse_fact("n <", &d).has_value());
  auto f = parse_fact("i < (n-1)/b && !(b == 0) || n != n", &d);
  REQUIRE(f.has_value());
  CHECK(f->eval({{"i", 1}, {"n", 9}, {"b", 4}}) == true);
  CHECK(f->eval({{"i", 2}, {"n", 9}, {"b", 4}}) == false);
  CHECK_FALSE(f->eval({{"i", 2}, {"n", 9}, {"b", 0}}).has_value()); // division by zero
}

TEST_CASE("the solver proves only what follows from the facts", "[prover]") {
  Solver s(facts({"b > 1", "a == -7"}));
  Poly a = Poly::var("a"), b = Poly::var("b");
  CHECK(s.proves(gt(b * b, b)));
  CHECK_FALSE(s.proves(gt(b, Poly(2))));
  CHECK_FALSE(s.proves(lt(b, Poly(2))));
  // Truncating division and remainder, as C.
  Solver t(facts({"a == -7", "b == 2"}));
  CHECK(t.proves(eq(Poly::div(a, b), Poly(-3))));
  CHECK(t.proves(eq(Poly::mod(a, b), Poly(-1))));
  CHECK(t.proves(eq(Poly::min(a, b), a)));
  CHECK(t.proves(eq(Poly::abs(a), Poly(7))));
  Env model;
  CHECK(s.check({lt(b, Poly(4))}, {"a", "b"}, &model, 1000) == SatResult::Sat);
  CHECK(model["b"] >= 2);
  CHECK(model["b"] <= 3);
  CHECK(s.check({lt(b, Poly(2))}, {"b"}, &model, 1000) == SatResult::Unsat);
}

TEST_CASE("NW (thesis 3.6.3): the write and read LMADs are disjoint, with a SOSI proof",
          "[prover]") {
  auto f = facts({"n == q*b + 1", "q > 1", "b > 1", "i >= 1"});
  SymLmad w = lmad("i*b + n + 1 + {(i + 1 : n*b - b), (b : n), (b : 1)}");
  SymLmad r = lmad("i*b + {(i + 1 : n*b - b), (b + 1 : n)}");
  ProveResult res = prove_disjoint(w, r, f);
  INFO(explain(res));
  REQUIRE(res.answer == Answer::Disjoint);
  CHECK(res.method == "sosi");
  REQUIRE(res.proof.has_value());
  CHECK(res.proof->step.rfind("split", 0) == 0);
  CHECK(res.proof->children.size() == 2);
  CHECK(explain(res).find("do not overlap") != std::string::npos);
  // Without q > 1 the blocks of two anti-diagonals can meet: n = b + 1 lets the write of
  // one block reach the read row of the next. The prover must not claim disjointness.
  ProveResult weak = prove_disjoint(w, r, facts({"n == q*b + 1", "q >= 1", "b > 1", "i >= 1"}));
  CHECK(weak.answer != Answer::Disjoint);
}

TEST_CASE("a witness is reported for overlapping symbolic LMADs", "[prover]") {
  auto f = facts({"n > 0"});
  ProveResult r = prove_disjoint(lmad("n - 1 + {(n : 1)}"), lmad("0 + {(n : 1)}"), f);
  REQUIRE(r.answer == Answer::Overlap);
  REQUIRE(r.witness.has_value());
  CHECK(r.witness->point == r.witness->assignment.at("n") - 1);
  // Unknown sign of a stride and no facts: never `disjoint`.
  ProveResult u = prove_disjoint(lmad("0 + {(n : s)}"), lmad("1 + {(n : s)}"), {});
  CHECK(u.answer == Answer::Overlap); // s = 1, n = 2 shares point 1
  // Contradictory facts make every pair disjoint, and say why.
  ProveResult c =
      prove_disjoint(lmad("0 + {(n : 1)}"), lmad("0 + {(n : 1)}"), facts({"n > 2", "n < 1"}));
  CHECK(c.answer == Answer::Disjoint);
  CHECK(c.method == "facts");
}

TEST_CASE("SOSI steps are sound on random concrete pairs", "[prover][soundness]") {
  // The SOSI procedure alone (no enumeration, no whole-membership query), so that every
  // `disjoint` comes from the interval reasoning; checked against enumeration.
  ProverOptions opt;
  opt.enumerate_concrete = false;
  opt.membership = false;
  opt.witness_search = false;
  SoundnessReport rep;
  int n = env_count("FUNMEM_PROVER_PAIRS", 100000);
  for (int k = 0; k < n; ++k) {
    LmadQuestion q = random_concrete_question(static_cast<uint64_t>(k));
    Solver s(q.facts, opt.timeout_ms);
    check_answer(q, prove_disjoint(q.l1, q.l2, s, opt), false, rep);
  }
  report(rep);
  CHECK(rep.questions == n);
  // The procedure must prove a fair share of the disjoint pairs, not answer unknown.
  CHECK(rep.disjoint > (rep.questions - rep.brute_overlaps) / 3);
}

TEST_CASE("concrete pairs are always decided by enumeration or by Z3", "[prover][soundness]") {
  SoundnessReport with_enum, with_z3;
  ProverOptions z3_only;
  z3_only.enumerate_concrete = false;
  int n = env_count("FUNMEM_PROVER_CONCRETE_Z3", 300);
  for (int k = 0; k < n; ++k) {
    LmadQuestion q = random_concrete_question(static_cast<uint64_t>(1000000 + k));
    check_answer(q, prove_disjoint(q.l1, q.l2, q.facts), true, with_enum);
    check_answer(q, prove_disjoint(q.l1, q.l2, q.facts, z3_only), true, with_z3);
  }
  report(with_enum);
  report(with_z3);
  CHECK(with_z3.unknown == 0);
}

TEST_CASE("symbolic answers are sound against enumeration over the fact ranges",
          "[prover][soundness]") {
  SoundnessReport rep;
  ProverOptions opt;
  opt.timeout_ms = 500;
  opt.search_timeout_ms = 500;
  int n = env_count("FUNMEM_PROVER_SYMBOLIC", 300);
  for (int k = 0; k < n; ++k) {
    LmadQuestion q = random_symbolic_question(static_cast<uint64_t>(k));
    check_answer(q, prove_disjoint(q.l1, q.l2, q.facts, opt), false, rep);
  }
  report(rep);
  CHECK(rep.overlap > 0);
  CHECK(rep.disjoint > 0);
}

TEST_CASE("the solver answers by sign and by a known model before asking Z3", "[prover][solver]") {
  Solver::clear_shared_cache();
  Poly i = Poly::var("i"), b = Poly::var("b"), n = Poly::var("n"), q = Poly::var("q");
  Solver s({ge(i, 0), ge(b, 1), eq(n, b * q + 1), gt(q, 0)});
  CHECK(s.proves(ge(i * b + b - 1, 0))); // every term non-negative after b -> b + 1
  CHECK(s.stats().bounds == 1);
  CHECK_FALSE(s.proves(eq(b * q, 7))); // false at the small model b = 1, q = 1, n = 2
  CHECK(s.stats().refuted == 1);
  CHECK(s.stats().z3_calls == 0);
  CHECK(s.proves(gt(n, b * q))); // the equation as a lower bound: n = b*q + 1
  CHECK(s.stats().definitions == 1);
  CHECK(s.stats().z3_calls == 0);
  CHECK(s.proves(Formula::cmp(n, Rel::Ne, b * q))); // not a bound: Z3
  CHECK(s.stats().z3_calls >= 1);
  CHECK(s.stats().wall_guard == 0); // Z3 counts this check's work: the guard never fires
  // The facts-only question is answered by the known model, checked against the facts.
  Env model;
  CHECK(s.check({}, {"b", "n", "q"}, &model, 1000) == SatResult::Sat);
  CHECK(model["n"] == model["b"] * model["q"] + 1);
  CHECK(model["q"] > 0);
}

TEST_CASE("the solver's shortcuts are sound against enumeration", "[prover][solver]") {
  // Random quadratic goals over x, y with random lower bounds: a proof must hold on every
  // assignment in a box above the bounds; a refutation must have a counterexample there.
  std::mt19937_64 g(99);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  Poly x = Poly::var("x"), y = Poly::var("y");
  int proved = 0, refuted = 0, split = 0;
  for (int k = 0; k < 300; ++k) {
    Solver::clear_shared_cache();
    int lx = pick(-2, 2), ly = pick(-2, 2);
    // Opaque atoms the bounds see through when their arguments are >= 0 (constant
    // divisors, so that every point of the box evaluates).
    // One draw per statement: the operands of an expression (and a call's arguments)
    // are evaluated in an unspecified order, and GCC and Clang differ.
    const int a1 = pick(-2, 2), d1 = pick(1, 3), a2 = pick(-2, 2), d2 = pick(1, 3);
    const int a3 = pick(-2, 2), a4 = pick(-2, 2);
    const Poly atoms[] = {Poly(0),
                          Poly::div(x + a1, Poly(d1)),
                          Poly::mod(y + a2, Poly(d2)),
                          Poly::min(x, y + a3),
                          Poly::max(x - 2, y + a4),
                          Poly::abs(x - y)};
    const int c0 = pick(-3, 3), cx = pick(-2, 2), cy = pick(-2, 2), cxy = pick(-1, 1);
    const int cxx = pick(-1, 1), ca = pick(-1, 2);
    const Poly& atom = atoms[pick(0, 5)];
    Poly p = Poly(c0) + cx * x + cy * y + cxy * x * y + cxx * x * x + ca * atom;
    // p >= 0, also written as the negation of each other comparison (the bounds
    // shortcut takes a negation's complement).
    const Formula goals[] = {ge(p, 0), Formula::negate(lt(p, 0)), Formula::negate(le(p, -1)),
                             Formula::negate(gt(-p, 0)), Formula::negate(ge(-p, 1)),
                             Formula::negate(Formula::conj({lt(p, 0), ge(x, x)})),
                             // disjunctions the bounds split on (x <= c or, with x > c, ...)
                             Formula::disj({le(x, pick(-2, 3)), ge(p, 0)}),
                             Formula::disj({lt(y, pick(-2, 3)), ge(p, 0), le(x, pick(-2, 3))}),
                             Formula::negate(Formula::conj({gt(x, pick(-2, 3)), lt(p, 0)}))};
    Formula goal = goals[pick(0, 8)];
    Solver s({ge(x, lx), ge(y, ly), le(x, lx + 4), le(y, ly + 4)});
    bool answer = s.proves(goal);
    bool holds_everywhere = true;
    for (int a = lx; a <= lx + 4; ++a)
      for (int c = ly; c <= ly + 4; ++c)
        holds_everywhere = holds_everywhere && *goal.eval({{"x", a}, {"y", c}});
    INFO(goal.to_string() << " with x >= " << lx << ", y >= " << ly);
    CHECK(answer == holds_everywhere);
    proved += s.stats().bounds;
    refuted += s.stats().refuted;
    split += s.stats().split;
  }
  CHECK(proved > 10);
  CHECK(refuted > 10);
  CHECK(split > 5);
}

TEST_CASE("the solver's bounds see through division, remainder, min, max and abs soundly",
          "[prover][solver]") {
  // Goals atom + c >= 0 over x, y in a box above random lower bounds: a proof by the
  // bounds must hold at every point of the box.
  std::mt19937_64 g(5);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  Poly x = Poly::var("x"), y = Poly::var("y");
  int by_bounds = 0;
  for (int k = 0; k < 600; ++k) {
    Solver::clear_shared_cache();
    const int lx = pick(-2, 2), ly = pick(-2, 2);
    // One draw per statement (see above).
    auto arg = [&] {
      const int cx = pick(-1, 1), cy = pick(-1, 1), c0 = pick(-2, 2);
      return cx * x + cy * y + c0;
    };
    const int kind = pick(0, 4);
    const Poly a = arg();
    Poly atom;
    switch (kind) {
    case 0:
      atom = Poly::div(a, Poly(pick(1, 3)));
      break;
    case 1:
      atom = Poly::mod(a, Poly(pick(1, 3)));
      break;
    case 2:
      atom = Poly::min(a, arg());
      break;
    case 3:
      atom = Poly::max(a, arg());
      break;
    default:
      atom = Poly::abs(a);
    }
    const int scale = pick(1, 2), shift = pick(-2, 1);
    Formula goal = ge(atom * scale + shift, 0);
    Solver s({ge(x, lx), ge(y, ly), le(x, lx + 5), le(y, ly + 5)});
    bool answer = s.proves(goal);
    bool holds_everywhere = true;
    for (int xa = lx; xa <= lx + 5; ++xa)
      for (int c = ly; c <= ly + 5; ++c)
        holds_everywhere = holds_everywhere && *goal.eval({{"x", xa}, {"y", c}});
    INFO(goal.to_string() << " with x >= " << lx << ", y >= " << ly);
    CHECK(answer == holds_everywhere);
    if (s.stats().bounds > 0) CHECK(holds_everywhere);
    by_bounds += s.stats().bounds;
  }
  CHECK(by_bounds > 50);
}

TEST_CASE("the solver proves by cases on min, max and abs without Z3", "[prover][solver]") {
  Solver::clear_shared_cache();
  // Z3 spends its whole budget on this product and answers unknown.
  Solver s(facts({"m >= 0", "n >= 1", "n <= 268435456", "m <= 268435456"}));
  Poly m = Poly::var("m"), n = Poly::var("n"), k = Poly::var("k");
  Formula goal = le(m * Poly::min(n - 1, Poly::max(0, k)) + m - 1, m * n - 1);
  CHECK(s.proves(goal));
  CHECK(s.stats().cases == 1);
  CHECK(s.stats().z3_calls == 0);
  // Not every case follows: not proved (here m*max(n, k) can exceed m*n).
  Solver t(facts({"m >= 0", "n >= 1"}));
  CHECK_FALSE(t.proves(le(m * Poly::max(n - 1, k), m * n)));
}

TEST_CASE("the solver's case split on min, max and abs agrees with enumeration",
          "[prover][solver]") {
  // Goals c1*x*atom1 + c2*atom2 + c0 >= 0 (atoms nested up to two deep) over a box of x,
  // y, z: a proof by cases must hold at every point of the box.
  std::mt19937_64 g(11);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  const Poly x = Poly::var("x"), y = Poly::var("y"), z = Poly::var("z");
  auto linear = [&] { return pick(-1, 1) * x + pick(-1, 1) * y + pick(-1, 1) * z + pick(-2, 2); };
  std::function<Poly(int)> atom = [&](int depth) {
    const Poly a = depth > 0 && pick(0, 1) ? atom(depth - 1) : linear();
    switch (pick(0, 2)) {
    case 0:
      return Poly::min(a, linear());
    case 1:
      return Poly::max(a, linear());
    default:
      return Poly::abs(a);
    }
  };
  int by_cases = 0;
  for (int k = 0; k < 600; ++k) {
    Solver::clear_shared_cache();
    const int lx = pick(-1, 1), ly = pick(-2, 2), lz = pick(-2, 2);
    Formula goal = ge(
        pick(-1, 1) * x * atom(1) + pick(-1, 1) * atom(1) + pick(-1, 1) * y * z + pick(-2, 3), 0);
    // Half the goals compare x times an atom with x times one of its arguments (true for
    // one sign where x >= 0), as the questions of a block's extent do.
    const Poly at = atom(1);
    if (pick(0, 1) && at.terms().size() == 1 && at.terms()[0].first.size() == 1) {
      const Poly arg = at.terms()[0].first[0].first->args.at(0);
      goal = ge(pick(-1, 1) * x * (arg - at) + pick(0, 1) * y * z + pick(-1, 1), 0);
    }
    Solver s({ge(x, lx), ge(y, ly), ge(z, lz), le(x, lx + 3), le(y, ly + 3), le(z, lz + 3)}, 50);
    const bool answer = s.proves(goal);
    bool holds_everywhere = true;
    for (int a = lx; a <= lx + 3; ++a)
      for (int b = ly; b <= ly + 3; ++b)
        for (int c = lz; c <= lz + 3; ++c)
          holds_everywhere = holds_everywhere && *goal.eval({{"x", a}, {"y", b}, {"z", c}});
    INFO(goal.to_string() << " with x >= " << lx << ", y >= " << ly << ", z >= " << lz);
    if (answer) CHECK(holds_everywhere);
    by_cases += s.stats().cases;
  }
  CHECK(by_cases >= 10);
}

TEST_CASE("the solver's bounds by other names and its small search agree with enumeration",
          "[prover][solver]") {
  // Facts that bound names by other names (y > x + c, z == x + y + c, z >= y), each name
  // in a box so that enumeration is complete; random quadratic goals. A proof by the
  // definitions must hold on every assignment, a refutation by the search must have a
  // counterexample, and every answer must agree with enumeration.
  std::mt19937_64 g(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  Poly x = Poly::var("x"), y = Poly::var("y"), z = Poly::var("z");
  int by_definitions = 0, by_search = 0;
  for (int k = 0; k < 300; ++k) {
    Solver::clear_shared_cache();
    const int lx = pick(-1, 2), c1 = pick(-1, 2), c2 = pick(-2, 2);
    std::vector<Formula> facts = {ge(x, lx), le(x, lx + 3), gt(y, x + c1), le(y, lx + 6)};
    if (pick(0, 1))
      facts.push_back(eq(z, x + y + c2));
    else
      facts.push_back(ge(z, y + c2));
    facts.push_back(le(z, 12));
    // One draw per statement (see above).
    const int c0 = pick(-4, 4), cx = pick(-2, 2), cy = pick(-2, 2), cz = pick(-2, 2);
    const int cxy = pick(-1, 1), cyz = pick(-1, 1), cxz = pick(-1, 1);
    Poly p = Poly(c0) + cx * x + cy * y + cz * z + cxy * x * y + cyz * y * z + cxz * x * z;
    Formula goal = ge(p, 0);
    Solver s(facts);
    bool answer = s.proves(goal);
    bool holds_everywhere = true, satisfiable = false;
    for (int a = -3; a <= 12; ++a)
      for (int b = -3; b <= 12; ++b)
        for (int c = -8; c <= 12; ++c) {
          Env env{{"x", a}, {"y", b}, {"z", c}};
          bool ok = true;
          for (const Formula& f : facts)
            ok = ok && *f.eval(env);
          if (!ok) continue;
          satisfiable = true;
          holds_everywhere = holds_everywhere && *goal.eval(env);
        }
    INFO(goal.to_string() << " under " << [&] {
      std::string t;
      for (const Formula& f : facts)
        t += f.to_string() + "; ";
      return t;
    }());
    REQUIRE(satisfiable);
    CHECK(answer == holds_everywhere);
    if (s.stats().definitions > 0) CHECK(holds_everywhere);
    if (s.stats().searched > 0) CHECK_FALSE(holds_everywhere);
    by_definitions += s.stats().definitions;
    by_search += s.stats().searched;
  }
  CHECK(by_definitions > 10);
  CHECK(by_search > 10);
}

TEST_CASE("the solver bounds /, % and min from above in negative terms", "[prover][solver]") {
  // Side conditions sc asked Z3 for (one took 158 ms): a place inside the destination.
  Solver::clear_shared_cache();
  Poly i = Poly::var("i"), n = Poly::var("n"), j = Poly::var("j"), m = Poly::var("m");
  Solver s({lt(i, n), ge(i, 0), ge(n, 0), lt(j, m), ge(j, 0), ge(m, 0)});
  CHECK(s.proves(lt(n * Poly::div(i, Poly(2)) - n * n + n - 1, 0))); // i/2 <= i <= n - 1
  CHECK(s.proves(gt(m - Poly::mod(j + 3, m), 0)));                   // (j+3) % m <= m - 1
  CHECK(s.proves(ge(n - Poly::min(i, j), 1)));                       // min(i, j) <= i
  CHECK(s.stats().atom_bounds == 3);
  CHECK(s.stats().z3_calls == 0);
  // Not a proof: i / 2 is not bounded by i - 1 (i = 0), nor j % m by j - 1.
  CHECK_FALSE(s.proves(ge(i - Poly::div(i, Poly(2)) - 1, 0)));
  CHECK(s.stats().atom_bounds == 3);
}

TEST_CASE("the solver's upper bounds of /, % and min agree with enumeration", "[prover][solver]") {
  // Goals with an opaque atom (symbolic divisors) in a term of random sign, times 1, x or
  // y, over x, y, d in boxes above random bounds (d >= 1 so that every point evaluates):
  // a proof through the atoms' upper bounds must hold at every point.
  std::mt19937_64 g(13);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  Poly x = Poly::var("x"), y = Poly::var("y"), d = Poly::var("d");
  int by_atoms = 0, proved = 0;
  for (int k = 0; k < 600; ++k) {
    Solver::clear_shared_cache();
    const int lx = pick(-1, 2), ly = pick(-1, 2), ld = pick(1, 2);
    // One draw per statement (see the shortcuts test above).
    auto arg = [&] {
      const int cx = pick(0, 1), cy = pick(0, 1), c0 = pick(-1, 2);
      return cx * x + cy * y + c0;
    };
    Poly atom;
    switch (pick(0, 4)) {
    case 0:
      atom = Poly::div(arg(), d);
      break;
    case 1:
      atom = Poly::mod(arg(), d);
      break;
    case 2: {
      const Poly a = arg();
      atom = Poly::div(a, Poly(pick(1, 3)));
      break;
    }
    case 3: {
      const Poly a = arg();
      atom = Poly::mod(a, d + pick(0, 1) * (x - lx));
      break;
    }
    default: {
      const Poly a = arg(), b = arg();
      atom = Poly::min(a, b);
    }
    }
    const Poly factors[] = {Poly(1), x, y, d};
    const int c0 = pick(-3, 3), cx = pick(-1, 2), cy = pick(-1, 2), cd = pick(-1, 2);
    const int cxd = pick(0, 1), ca = pick(-2, 1);
    const Poly& factor = factors[pick(0, 3)];
    Poly p = Poly(c0) + cx * x + cy * y + cd * d + cxd * x * d + ca * factor * atom;
    const Formula goal = ge(p, 0);
    const std::vector<Formula> fs = {ge(x, lx),     ge(y, ly),     ge(d, ld),   le(x, lx + 4),
                                     le(y, ly + 4), le(d, ld + 3), gt(d, x - 3)};
    Solver s(fs);
    const bool answer = s.proves(goal);
    bool holds_everywhere = true;
    for (int a = lx; a <= lx + 4; ++a)
      for (int b = ly; b <= ly + 4; ++b)
        for (int c = ld; c <= ld + 3; ++c) {
          const Env env{{"x", a}, {"y", b}, {"d", c}};
          bool in = true;
          for (const Formula& f : fs)
            in = in && *f.eval(env);
          if (!in) continue;
          const auto v = goal.eval(env);
          REQUIRE(v.has_value());
          holds_everywhere = holds_everywhere && *v;
        }
    INFO(goal.to_string() << " with x >= " << lx << ", y >= " << ly << ", d >= " << ld);
    if (s.stats().atom_bounds > 0) CHECK(holds_everywhere);
    CHECK(answer == holds_everywhere);
    by_atoms += s.stats().atom_bounds;
    proved += answer;
  }
  CHECK(by_atoms > 20); // 27 with seed 13
  CHECK(proved > 100);
}

TEST_CASE("the solver's satisfiability shortcuts agree with enumeration", "[prover][solver]") {
  // check(facts && extra): Sat at a known model (when no model is wanted), Unsat
  // when an extra formula's negation follows from the lower bounds (no assignment in
  // the box may satisfy both), compared with enumeration of a box holding every model.
  std::mt19937_64 g(11);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  Poly x = Poly::var("x"), y = Poly::var("y"), z = Poly::var("z");
  int by_model = 0, by_bounds = 0;
  for (int k = 0; k < 300; ++k) {
    Solver::clear_shared_cache();
    const int lx = pick(-1, 2), ly = pick(0, 2), c = pick(-1, 2);
    std::vector<Formula> facts = {ge(x, lx),     le(x, lx + 4), ge(y, ly),
                                  le(y, ly + 4), gt(z, x + c),  le(z, 10)};
    std::vector<Formula> extra;
    auto comparison = [&] { // one draw per statement (see above)
      const int c0 = pick(-4, 4), cx = pick(-2, 2), cy = pick(-1, 1), cz = pick(-1, 1);
      const int cxy = pick(-1, 1);
      Poly p = Poly(c0) + cx * x + cy * y + cz * z + cxy * x * y;
      return pick(0, 1) ? ge(p, 0) : lt(p, 0);
    };
    for (int e = pick(1, 2); e-- > 0;) {
      switch (pick(0, 3)) {
      case 0: // the shape of the prover's questions: !(a || (b && c))
        extra.push_back(Formula::negate(
            Formula::disj({comparison(), Formula::conj({comparison(), comparison()})})));
        break;
      case 1:
        extra.push_back(Formula::disj({comparison(), comparison()}));
        break;
      default:
        extra.push_back(comparison());
      }
    }
    Solver s(facts);
    Env model;
    // Half the questions want a model (Z3's), half do not (a known model may answer).
    const bool want_model = k % 2 == 0;
    SatResult r = s.check(extra, {"x", "y", "z"}, want_model ? &model : nullptr, 1000);
    bool satisfiable = false;
    for (int a = -2; a <= 7; ++a)
      for (int b = -1; b <= 7; ++b)
        for (int d = -3; d <= 10; ++d) {
          Env env{{"x", a}, {"y", b}, {"z", d}};
          bool ok = true;
          for (const auto& fs : {facts, extra})
            for (const Formula& f : fs)
              ok = ok && *f.eval(env);
          satisfiable = satisfiable || ok;
        }
    INFO(k << ": " << [&] {
      std::string t;
      for (const Formula& f : extra)
        t += f.to_string() + "; ";
      return t;
    }());
    REQUIRE(r != SatResult::Unknown);
    CHECK((r == SatResult::Sat) == satisfiable);
    if (r == SatResult::Sat && want_model)
      for (const auto& fs : {facts, extra})
        for (const Formula& f : fs)
          CHECK(*f.eval(model));
    by_model += s.stats().sat_by_model;
    by_bounds += s.stats().unsat_by_bounds;
  }
  CHECK(by_model > 10);
  CHECK(by_bounds > 10);
}

TEST_CASE("the solver's checks settle the min, max and abs the facts decide, against enumeration",
          "[prover][solver]") {
  // check(facts && extra) where extra holds atoms (the prover's `min(1, max(0, n))`
  // strides): the answer and the model agree with enumeration of a box holding every model.
  std::mt19937_64 g(13);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  const Poly x = Poly::var("x"), y = Poly::var("y"), n = Poly::var("n");
  int settled = 0;
  for (int k = 0; k < 200; ++k) {
    Solver::clear_shared_cache();
    const int ln = pick(-1, 2);
    const std::vector<Formula> facts = {ge(n, ln), le(n, ln + 3), ge(x, 0),
                                        le(x, 4),  ge(y, -2),     le(y, 3)};
    auto atom = [&] {
      const Poly a = pick(-1, 1) * n + pick(-1, 1), b = pick(0, 1) * n + pick(-1, 2);
      switch (pick(0, 2)) {
      case 0:
        return Poly::min(a, Poly::max(b, pick(-1, 1) * n));
      case 1:
        return Poly::max(a, b);
      default:
        return Poly::abs(a);
      }
    };
    const Poly p = pick(-1, 1) * x * atom() + pick(-1, 1) * y * atom() + pick(-3, 3);
    std::vector<Formula> extra = {pick(0, 1) ? eq(p, 0) : lt(p, 0)};
    Solver s(facts);
    Env model;
    const SatResult r = s.check(extra, {"x", "y", "n"}, &model, 1000);
    bool satisfiable = false;
    for (int a = 0; a <= 4; ++a)
      for (int b = -2; b <= 3; ++b)
        for (int c = ln; c <= ln + 3; ++c) {
          const Env env{{"x", a}, {"y", b}, {"n", c}};
          satisfiable = satisfiable || *extra[0].eval(env);
        }
    INFO(k << ": " << extra[0].to_string() << " with n >= " << ln);
    REQUIRE(r != SatResult::Unknown);
    CHECK((r == SatResult::Sat) == satisfiable);
    if (r == SatResult::Sat)
      for (const auto& fs : {facts, extra})
        for (const Formula& f : fs)
          CHECK(*f.eval(model));
    settled += s.stats().settled;
  }
  CHECK(settled > 20);
}

TEST_CASE("the solver proves LUD's column bound by substituting the names' lower bounds",
          "[prover][solver]") {
  Solver::clear_shared_cache();
  Poly b = Poly::var("b"), t = Poly::var("t"), i = Poly::var("i"), nb = Poly::var("nb"),
       it = Poly::var("it");
  Solver s({ge(b, 1), ge(t, 0), lt(t, b), ge(i, 0), ge(it, 0), lt(i + it + 1, nb)});
  CHECK(s.proves(gt(b * nb, b * i + b + t)));
  CHECK(s.stats().definitions == 1);
  CHECK_FALSE(s.proves(gt(b * nb, b * i + 2 * b + t))); // b = 1, t = 0, i = 0, nb = 2
  CHECK(s.stats().z3_calls == 0);
}

TEST_CASE("an LMAD's extent is its least and greatest address, against enumeration",
          "[prover][extent]") {
  // Offsets, counts and strides over two names; `proves` decides each question at one
  // assignment, so the extent must be exact there.
  rc::prop("lmad_extent matches the enumerated addresses", [] {
    const std::vector<std::string> terms = {"0", "1", "-2", "a", "b", "a - 1", "2*b", "-a"};
    auto term = [&] { return lmad("(" + *rc::gen::elementOf(terms) + ") + {}").offset; };
    SymLmad l;
    l.offset = term();
    const int rank = *rc::gen::inRange(0, 3);
    for (int k = 0; k < rank; ++k)
      l.dims.emplace_back(term(), term());
    const Env env = {{"a", *rc::gen::inRange(-3, 4)}, {"b", *rc::gen::inRange(-3, 4)}};
    auto proves = [&](const Formula& f) { return all_hold({f}, env); };
    auto ext = lmad_extent(l, proves);
    RC_ASSERT(ext.has_value()); // at one assignment every sign is known
    // Enumerate the points.
    std::vector<int64_t> counts, strides;
    for (const auto& [c, s] : l.dims) {
      counts.push_back(*c.eval(env));
      strides.push_back(*s.eval(env));
    }
    const int64_t off = *l.offset.eval(env);
    bool empty = false;
    for (int64_t c : counts)
      empty = empty || c <= 0;
    bool said_empty = false;
    for (const Formula& f : ext->empty)
      said_empty = said_empty || all_hold({f}, env);
    RC_ASSERT(said_empty == empty);
    if (empty) return;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    std::vector<int64_t> idx(counts.size(), 0);
    for (;;) {
      int64_t addr = off;
      for (size_t k = 0; k < idx.size(); ++k)
        addr += idx[k] * strides[k];
      lo = std::min(lo, addr);
      hi = std::max(hi, addr);
      size_t k = 0;
      while (k < idx.size() && ++idx[k] == counts[k])
        idx[k++] = 0;
      if (k == idx.size()) break;
    }
    RC_ASSERT(*ext->lo.eval(env) == lo);
    RC_ASSERT(*ext->hi.eval(env) == hi);
    // within(a, b) holds exactly when every address lies in [a, b].
    for (int64_t a : {lo - 1, lo, lo + 1})
      for (int64_t b : {hi - 1, hi, hi + 1})
        RC_ASSERT(all_hold({ext->within(Poly(a), Poly(b))}, env) == (a <= lo && hi <= b));
  });
}
