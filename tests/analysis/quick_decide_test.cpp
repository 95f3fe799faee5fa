// The decisions without Z3 (analysis/quick_decide.h) against brute force: on random
// facts and goals over three names, `implied_by_bounds` is never true of a goal that is
// false at an assignment satisfying the facts, and every model `search_models` and
// `small_model` return satisfies the facts. Also the solver's answers on the same
// questions (with and without its quick decisions, the answers agree with enumeration).
#include "analysis/quick_decide.h"

#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <set>

using namespace funmem;

namespace {

const char* const kNames[] = {"a", "b", "c"};

/// A random polynomial: small coefficients, products of at most two names, and now and
/// then a division or a minimum.
Poly random_poly(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> coef(-3, 3), pick(0, 2), shape(0, 9);
  Poly p = coef(rng);
  for (int t = 0; t < 2; ++t) {
    Poly term = Poly(coef(rng)) * Poly::var(kNames[pick(rng)]);
    if (shape(rng) == 0) term = term * Poly::var(kNames[pick(rng)]);
    p = p + term;
  }
  if (shape(rng) == 1) p = p + Poly::div(Poly::var(kNames[pick(rng)]), Poly(1 + pick(rng)));
  if (shape(rng) == 2) p = p + Poly::min(Poly::var(kNames[pick(rng)]), Poly(coef(rng)));
  return p;
}

Formula random_cmp(std::mt19937_64& rng) {
  static const Rel rels[] = {Rel::Lt, Rel::Le, Rel::Gt, Rel::Ge, Rel::Eq};
  std::uniform_int_distribution<int> r(0, 4);
  return Formula::cmp(random_poly(rng), rels[r(rng)], random_poly(rng));
}

/// The assignments of a, b, c in [-4, 8] that satisfy every fact.
std::vector<Env> models_of(const std::vector<Formula>& facts) {
  std::vector<Env> out;
  for_each_assignment({"c", "b", "a"}, value_range(-4, 8), [&](const Env& env) {
    if (all_hold(facts, env)) out.push_back(env);
    return true;
  });
  return out;
}

} // namespace

TEST_CASE("quick decisions are sound against enumeration", "[prover][quick]") {
  std::mt19937_64 rng(7);
  int implied = 0, questions = 0;
  for (int k = 0; k < 1500; ++k) {
    std::vector<Formula> facts;
    std::uniform_int_distribution<int> n(1, 3);
    for (int j = n(rng); j > 0; --j)
      facts.push_back(random_cmp(rng));
    // Lower bounds make the bounds procedure applicable often.
    facts.push_back(ge(Poly::var("a"), Poly(0)));
    if (k % 2) facts.push_back(gt(Poly::var("b"), Poly::var("a")));
    Formula goal = random_cmp(rng);
    if (k % 5 == 0) goal = Formula::disj({goal, random_cmp(rng)});
    SolverStats stats;
    QuickDecider q(facts, stats);
    const std::vector<Env> models = models_of(facts);
    INFO("facts: " << Formula::conj(facts).to_string() << "\ngoal: " << goal.to_string());
    for (const Env& m : q.search_models())
      CHECK(all_hold(facts, m));
    if (auto m = q.small_model()) CHECK(all_hold(facts, *m));
    ++questions;
    if (q.implied_by_bounds(goal)) {
      ++implied;
      // Sound: the goal holds at every enumerated model of the facts.
      for (const Env& m : models) {
        auto v = goal.eval(m);
        INFO("at a=" << m.at("a") << " b=" << m.at("b") << " c=" << m.at("c"));
        CHECK((!v || *v));
      }
    }
    // A refutation is a real counterexample.
    if (q.refuted_by_search(goal)) CHECK(false_at_one_of(goal, q.search_models()));
  }
  CHECK(questions == 1500);
  CHECK(implied > 50); // the procedure decides a fair share, so the check above bites
}

TEST_CASE("complement is the negation", "[prover][quick]") {
  std::mt19937_64 rng(11);
  for (int k = 0; k < 300; ++k) {
    Formula f = k % 3 ? random_cmp(rng) : Formula::conj({random_cmp(rng), random_cmp(rng)});
    auto c = complement(f);
    REQUIRE(c);
    for (int64_t a = -3; a <= 3; ++a)
      for (int64_t b = -3; b <= 3; ++b) {
        Env env{{"a", a}, {"b", b}, {"c", a - b}};
        auto x = f.eval(env), y = c->eval(env);
        if (x && y) CHECK(*x != *y);
      }
  }
}

TEST_CASE("negation pushed to the comparisons is the negation", "[prover][quick]") {
  // Random formulas of comparisons, true, false, conjunctions, disjunctions and
  // negations, two levels deep: negation(f) is false exactly where f is true.
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<int> shape(0, 6);
  std::function<Formula(int)> random_formula = [&](int depth) -> Formula {
    int s = depth == 0 ? 0 : shape(rng);
    if (s <= 2) return random_cmp(rng);
    if (s == 3) return shape(rng) % 2 ? Formula{} : Formula::negate(Formula{}); // true / not true
    if (s == 4) return Formula::negate(random_formula(depth - 1));
    std::vector<Formula> kids = {random_formula(depth - 1), random_formula(depth - 1)};
    return s == 5 ? Formula::conj(kids) : Formula::disj(kids);
  };
  int compared = 0;
  for (int k = 0; k < 400; ++k) {
    Formula f = random_formula(2), n = negation(f);
    INFO(f.to_string() << " vs " << n.to_string());
    for_each_assignment({"c", "b", "a"}, value_range(-3, 3), [&](const Env& env) {
      auto x = f.eval(env), y = n.eval(env);
      if (x && y) {
        CHECK(*x != *y);
        ++compared;
      }
      return true;
    });
  }
  CHECK(compared > 400 * 300);
  Formula no;
  no.kind = Formula::Kind::False;
  CHECK(negation(Formula{}).kind == Formula::Kind::False);
  CHECK(negation(no).kind == Formula::Kind::True);
}

TEST_CASE("the enumerator visits every assignment once, first name fastest", "[prover][quick]") {
  for (size_t nvars = 0; nvars <= 3; ++nvars)
    for (int64_t hi = -1; hi <= 2; ++hi) {
      std::vector<std::string> vars;
      for (size_t k = 0; k < nvars; ++k)
        vars.push_back(std::string(1, static_cast<char>('a' + k)));
      const std::vector<int64_t> values = value_range(0, hi);
      std::vector<Env> seen;
      size_t n = for_each_assignment(vars, values, [&](const Env& e) {
        seen.push_back(e);
        return true;
      });
      size_t want = 1;
      for (size_t k = 0; k < nvars; ++k)
        want *= values.size();
      CHECK(n == want);
      REQUIRE(seen.size() == want);
      CHECK(std::set<Env>(seen.begin(), seen.end()).size() == want);
      for (size_t t = 0; t < seen.size(); ++t) {
        size_t x = t;
        for (const std::string& v : vars) {
          CHECK(seen[t].at(v) == values[x % values.size()]);
          x /= values.size();
        }
      }
    }
  int visits = 0;
  CHECK(for_each_assignment({"a", "b"}, {1, 2, 3}, [&](const Env&) { return ++visits < 4; }) == 4);
  CHECK(for_each_assignment(
            {"a", "b"}, {1, 2, 3}, [](const Env&) { return true; }, 5) == 5);
}
