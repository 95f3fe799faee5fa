// Brute-force checks of the prover (see prover_check.h).
#include "verifier/prover_check.h"

#include <random>
#include <set>

namespace funmem {

namespace {

int64_t pick(std::mt19937_64& g, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(g);
}

SymLmad concrete_lmad(std::mt19937_64& g) {
  SymLmad l;
  l.offset = pick(g, -10, 10);
  int rank = static_cast<int>(pick(g, 0, 3));
  for (int k = 0; k < rank; ++k)
    l.dims.emplace_back(pick(g, 0, 9) == 0 ? pick(g, -1, 0) : pick(g, 1, 4), pick(g, -6, 6));
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
  for (int64_t a = nlo; a <= nhi; ++a)
    for (int64_t b = mlo; b <= mhi; ++b) {
      Env env = {{"n", a}, {"m", b}};
      bool ok = true;
      for (const Formula& f : q.facts) {
        auto v = f.eval(env);
        ok = ok && v && *v;
      }
      if (ok) q.assignments.push_back(env);
    }
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

} // namespace funmem
