// The case discussion of comprehensive optimisation (tune/case_discussion.h) on a model
// of the seed's 1-D Jacobi kernel: registers (lowered by a register cap), shared memory
// 2sB + 2 (lowered by reducing the granularity s to 1, then by not caching) and threads
// B. Every answer is checked against enumeration of a small domain: each leaf's system
// holds somewhere, the leaves cover every point when coverage is proved, and a leaf
// whose system holds at a point fits every limit there.
#include "tune/case_discussion.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace funmem;

namespace {

bool has(const std::vector<std::string>& applied, const char* s) {
  return std::find(applied.begin(), applied.end(), s) != applied.end();
}

CounterValues jacobi(const std::vector<std::string>& applied) {
  const Poly B = Poly::var("B"), s = has(applied, "granularity") ? Poly(1) : Poly::var("s");
  CounterValues v;
  v["registers"] = has(applied, "maxrregcount") ? Poly(8) : Poly(10) + s;
  v["shared"] = has(applied, "no-cache") ? Poly(0) : Poly(2) * s * B + Poly(2);
  v["threads"] = B;
  return v;
}

const std::vector<ResourceCounter> kCounters = {
    {"registers", "R", {"maxrregcount"}},
    {"shared", "Z", {"granularity", "no-cache"}},
    {"threads", "T", {}},
};

Formula f(const char* text) {
  Diagnostic d;
  auto r = parse_fact(text, &d);
  REQUIRE(r);
  return *r;
}

CaseOptions options(bool threads_fit) {
  CaseOptions o;
  for (const char* t : {"B >= 1", "B <= 4", "s >= 1", "s <= 3", "R >= 8", "R <= 14", "Z >= 0",
                        "Z <= 20", "T >= 1", "T <= 4"})
    o.domain.push_back(f(t));
  if (threads_fit) o.domain.push_back(f("B <= T"));
  o.vars = {"B", "s", "R", "Z", "T"};
  return o;
}

/// Every point of the domain, by enumeration.
std::vector<Env> points(const CaseOptions& o) {
  std::vector<Env> out;
  for (int64_t B = 1; B <= 4; ++B)
    for (int64_t s = 1; s <= 3; ++s)
      for (int64_t R = 1; R <= 14; ++R)
        for (int64_t Z = 0; Z <= 20; ++Z)
          for (int64_t T = 1; T <= 4; ++T) {
            Env e{{"B", B}, {"s", s}, {"R", R}, {"Z", Z}, {"T", T}};
            if (all_hold(o.domain, e)) out.push_back(e);
          }
  return out;
}

void check_against_enumeration(const CaseDiscussion& d, const CaseOptions& o) {
  const std::vector<Env> pts = points(o);
  std::vector<int> holds(d.leaves.size(), 0);
  int uncovered = 0;
  for (const Env& e : pts) {
    bool covered = false;
    for (size_t k = 0; k < d.leaves.size(); ++k) {
      const CaseLeaf& l = d.leaves[k];
      if (!all_hold(l.constraints, e)) continue;
      covered = true;
      ++holds[k];
      // A leaf that holds fits every limit.
      for (const ResourceCounter& c : kCounters) {
        auto v = l.counters.at(c.name).eval(e);
        REQUIRE(v);
        CHECK(*v <= e.at(c.limit));
      }
    }
    uncovered += covered ? 0 : 1;
  }
  for (size_t k = 0; k < d.leaves.size(); ++k) {
    INFO("leaf " << k + 1);
    CHECK(d.leaves[k].consistent == SatResult::Sat);
    CHECK(all_hold(d.leaves[k].constraints, d.leaves[k].model));
    CHECK(holds[k] > 0);
  }
  if (d.coverage == SatResult::Unsat) CHECK(uncovered == 0);
  if (d.coverage == SatResult::Sat) {
    CHECK(uncovered > 0);
    bool in_a_leaf = false;
    for (const CaseLeaf& l : d.leaves)
      in_a_leaf = in_a_leaf || all_hold(l.constraints, d.uncovered);
    CHECK_FALSE(in_a_leaf);
    CHECK(all_hold(o.domain, d.uncovered));
  }
}

} // namespace

TEST_CASE("case discussion: the Jacobi model's tree, checked against enumeration",
          "[tune][comprehensive]") {
  const CaseOptions o = options(true);
  CaseDiscussion d = comprehensive(kCounters, jacobi, o);
  INFO(case_tree_text(d));
  // Registers: as compiled, or capped. Shared memory: cached, then with s = 1, then not
  // cached. Leaves whose systems are empty are pruned (e.g. 2B + 2 > Z >= 2sB + 2).
  CHECK(d.leaves.size() >= 4);
  CHECK(d.all_consistent);
  CHECK(d.coverage == SatResult::Unsat);
  for (const ResourceCounter& c : kCounters)
    CHECK(d.optimal_leaf.at(c.name).has_value());
  // The leaf that applies every strategy exists and is optimal for registers and shared.
  bool all = false;
  for (const CaseLeaf& l : d.leaves)
    all = all || (has(l.strategies, "maxrregcount") && has(l.strategies, "granularity") &&
                  has(l.strategies, "no-cache"));
  CHECK(all);
  check_against_enumeration(d, o);
  const std::string text = case_tree_text(d);
  CHECK(text.find("registers: accept") == 0);
  CHECK(text.find("apply maxrregcount") != std::string::npos);
  CHECK(text.find("coverage: proved") != std::string::npos);
}

TEST_CASE("case discussion: a counter nothing lowers leaves a region uncovered, named",
          "[tune][comprehensive]") {
  const CaseOptions o = options(false);
  CaseDiscussion d = comprehensive(kCounters, jacobi, o);
  INFO(case_tree_text(d));
  REQUIRE(d.coverage == SatResult::Sat);
  CHECK(d.uncovered.at("B") > d.uncovered.at("T"));
  CHECK(case_tree_text(d).find("no strategy lowers it (not covered)") != std::string::npos);
  check_against_enumeration(d, o);
}
