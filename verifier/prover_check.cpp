// Brute-force checks of the prover (see prover_check.h).
#include "verifier/prover_check.h"

#include <random>
#include <set>

namespace funmem {

namespace {

int64_t pick(std::mt19937_64& g, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(g);
}

/// The assignments of n and m in lo..hi that satisfy the facts.
std::vector<Env> assignments_in(const std::vector<Formula>& facts, int64_t lo, int64_t hi) {
  std::vector<Env> out;
  for_each_assignment({"m", "n"}, value_range(lo, hi), [&](const Env& env) {
    if (all_hold(facts, env)) out.push_back(env);
    return true;
  });
  return out;
}

SymLmad concrete_lmad(std::mt19937_64& g) {
  SymLmad l;
  l.offset = pick(g, -10, 10);
  int rank = static_cast<int>(pick(g, 0, 3));
  for (int k = 0; k < rank; ++k) {
    // One draw per statement (a call's arguments are evaluated in an unspecified
    // order; this is GCC's), so that a seed means the same pairs with every compiler.
    const int64_t stride = pick(g, -6, 6);
    const int64_t count = pick(g, 0, 9) == 0 ? pick(g, -1, 0) : pick(g, 1, 4);
    l.dims.emplace_back(count, stride);
  }
  return l;
}

Poly small_affine(std::mt19937_64& g, const Poly& n, const Poly& m, int64_t lo, int64_t hi) {
  Poly p = pick(g, lo, hi);
  int kind = static_cast<int>(pick(g, 0, 5));
  if (kind == 1) p = p + pick(g, -2, 2) * n;
  if (kind == 2) p = p + pick(g, -2, 2) * m;
  if (kind == 3) p = p + n * m;
  if (kind == 4) p = p + pick(g, 1, 2) * n - m;
  return p;
}

SymLmad symbolic_lmad(std::mt19937_64& g) {
  Poly n = Poly::var("n"), m = Poly::var("m");
  SymLmad l;
  l.offset = small_affine(g, n, m, -6, 6);
  int rank = static_cast<int>(pick(g, 0, 3));
  for (int k = 0; k < rank; ++k) {
    Poly count = pick(g, 0, 2) == 0 ? small_affine(g, n, m, 0, 3) : Poly(pick(g, 1, 3)) + n;
    Poly stride = small_affine(g, n, m, -4, 4);
    l.dims.emplace_back(count, stride);
  }
  return l;
}

} // namespace

std::string LmadQuestion::to_string() const {
  std::string s = l1.to_string() + " ; " + l2.to_string() + " ;";
  for (size_t k = 0; k < facts.size(); ++k)
    s += (k ? ", " : " ") + facts[k].to_string();
  return s;
}

LmadQuestion random_concrete_question(uint64_t seed) {
  std::mt19937_64 g(seed);
  LmadQuestion q;
  q.l1 = concrete_lmad(g);
  q.l2 = concrete_lmad(g);
  q.assignments.push_back({});
  return q;
}

LmadQuestion random_symbolic_question(uint64_t seed) {
  std::mt19937_64 g(seed);
  LmadQuestion q;
  q.l1 = symbolic_lmad(g);
  q.l2 = symbolic_lmad(g);
  Poly n = Poly::var("n"), m = Poly::var("m");
  int64_t nlo = pick(g, 0, 2), nhi = nlo + pick(g, 0, 3);
  int64_t mlo = pick(g, -1, 2), mhi = mlo + pick(g, 0, 3);
  q.facts = {ge(n, nlo), le(n, nhi), ge(m, mlo), le(m, mhi)};
  int extra = static_cast<int>(pick(g, 0, 3));
  if (extra == 1) q.facts.push_back(lt(m, n));
  if (extra == 2) q.facts.push_back(eq(n, m + 1));
  q.assignments = assignments_in(q.facts, -2, 8); // the bounds lie within -1..5
  return q;
}

bool brute_force_overlap(const LmadQuestion& q) {
  for (const Env& env : q.assignments) {
    auto a = lmad_eval(q.l1, env), b = lmad_eval(q.l2, env);
    if (!a || !b) continue;
    auto pa = a->points(1 << 20), pb = b->points(1 << 20);
    if (!pa || !pb) continue;
    std::set<int64_t> s(pa->begin(), pa->end());
    for (int64_t p : *pb)
      if (s.count(p)) return true;
  }
  return false;
}

void check_answer(const LmadQuestion& q, const ProveResult& r, bool require_decided,
                  SoundnessReport& rep) {
  ++rep.questions;
  bool brute = brute_force_overlap(q);
  if (brute) ++rep.brute_overlaps;
  auto fail = [&](const std::string& why) { rep.failures.push_back(q.to_string() + " : " + why); };
  switch (r.answer) {
  case Answer::Disjoint:
    ++rep.disjoint;
    if (brute) fail("answered disjoint (" + r.method + ") but the sets share a point");
    break;
  case Answer::Unknown:
    ++rep.unknown;
    if (require_decided) fail("answered unknown: " + r.reason);
    break;
  case Answer::Overlap: {
    ++rep.overlap;
    if (!r.witness) {
      fail("overlap without a witness");
      break;
    }
    const Witness& w = *r.witness;
    bool ok = true;
    for (const Formula& f : q.facts) {
      auto v = f.eval(w.assignment);
      ok = ok && v && *v;
    }
    auto a = lmad_eval(q.l1, w.assignment), b = lmad_eval(q.l2, w.assignment);
    ok = ok && a && b && w.index1.size() == a->dims.size() && w.index2.size() == b->dims.size();
    if (ok) {
      for (size_t k = 0; k < w.index1.size(); ++k)
        ok = ok && w.index1[k] >= 0 && w.index1[k] < a->dims[k].first;
      for (size_t k = 0; k < w.index2.size(); ++k)
        ok = ok && w.index2[k] >= 0 && w.index2[k] < b->dims[k].first;
      ok = ok && a->apply(w.index1) == w.point && b->apply(w.index2) == w.point;
    }
    if (!ok) fail("overlap witness does not check");
    break;
  }
  }
}

LmadQuestion lmad_fuzz_question(uint64_t seed) {
  return seed % 2 == 0 ? random_concrete_question(seed) : random_symbolic_question(seed);
}

LmadFuzzOutcome fuzz_lmad(const LmadQuestion& q, const ProverOptions& prover) {
  LmadFuzzOutcome out;
  bool concrete = q.assignments.size() == 1 && q.assignments[0].empty();
  ProverOptions full = prover;
  full.timeout_ms = 500;
  full.search_timeout_ms = 500;
  ProverOptions sosi_only = full;
  sosi_only.enumerate_concrete = false;
  sosi_only.membership = false;
  sosi_only.witness_search = false;
  ProverOptions z3_only = full;
  z3_only.enumerate_concrete = false;
  z3_only.sosi = false;
  struct Config {
    const char* name;
    const ProverOptions* opt;
    bool decided;
  };
  std::vector<Config> configs = {{"full prover", &full, concrete},
                                 {"SOSI alone", &sosi_only, false}};
  if (concrete) configs.push_back({"Z3 alone", &z3_only, true});
  for (const Config& c : configs) {
    SoundnessReport rep;
    check_answer(q, prove_disjoint(q.l1, q.l2, q.facts, *c.opt), c.decided, rep);
    for (const std::string& f : rep.failures)
      out.detail += std::string(c.name) + ": " + f + "\n";
    if (rep.failures.empty()) ++out.checks;
  }
  out.ok = out.detail.empty();
  return out;
}

namespace {

// Assignments of a shrunk question: those of the symbolic generator's ranges that
// satisfy its facts (a concrete question keeps its single empty assignment).
void recompute_assignments(LmadQuestion& q) {
  if (q.assignments.size() == 1 && q.assignments[0].empty()) return;
  q.assignments = assignments_in(q.facts, -2, 8);
}

// Smaller polynomials to try in place of p: zero, its constant term, its symbolic part,
// and constants moved towards zero.
std::vector<Poly> smaller(const Poly& p) {
  std::vector<Poly> out;
  if (auto k = p.constant()) {
    if (*k == 0) return out;
    out = {0, *k / 2, *k - (*k > 0 ? 1 : -1)};
    return out;
  }
  Poly constant_part = 0;
  for (const auto& [mono, c] : p.terms())
    if (mono.empty()) constant_part = c;
  out = {0, constant_part, p - constant_part};
  return out;
}

} // namespace

LmadQuestion shrink_lmad(const LmadQuestion& q, int* steps, const ProverOptions& prover) {
  LmadQuestion cur = q;
  int n = 0;
  auto fails = [&](const LmadQuestion& c) { return !fuzz_lmad(c, prover).ok; };
  bool progress = true;
  while (progress && n < 200) {
    progress = false;
    std::vector<LmadQuestion> candidates;
    for (SymLmad* l : {&cur.l1, &cur.l2}) {
      for (size_t k = 0; k < l->dims.size(); ++k) {
        LmadQuestion c = cur;
        SymLmad& cl = l == &cur.l1 ? c.l1 : c.l2;
        cl.dims.erase(cl.dims.begin() + static_cast<std::ptrdiff_t>(k));
        candidates.push_back(c);
      }
      auto vary = [&](auto get) {
        for (const Poly& p : smaller(get(*l))) {
          LmadQuestion c = cur;
          get(l == &cur.l1 ? c.l1 : c.l2) = p;
          candidates.push_back(c);
        }
      };
      vary([](SymLmad& x) -> Poly& { return x.offset; });
      for (size_t k = 0; k < l->dims.size(); ++k) {
        vary([k](SymLmad& x) -> Poly& { return x.dims[k].first; });
        vary([k](SymLmad& x) -> Poly& { return x.dims[k].second; });
      }
    }
    for (size_t k = 0; k < cur.facts.size(); ++k) {
      LmadQuestion c = cur;
      c.facts.erase(c.facts.begin() + static_cast<std::ptrdiff_t>(k));
      recompute_assignments(c);
      candidates.push_back(c);
    }
    for (const LmadQuestion& c : candidates)
      if (!(c.l1 == cur.l1 && c.l2 == cur.l2 && c.facts.size() == cur.facts.size()) && fails(c)) {
        cur = c;
        ++n;
        progress = true;
        break;
      }
  }
  if (steps) *steps = n;
  return cur;
}

std::string prove_corpus_entry(const LmadQuestion& q) {
  return std::string("# expect: ") + (brute_force_overlap(q) ? "overlap" : "disjoint") + "\n" +
         q.to_string() + "\n";
}

} // namespace funmem
