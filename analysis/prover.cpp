// The SOSI non-overlap procedure, the exact concrete decision and the witness search
// (see prover.h and docs/prover.md).
#include "analysis/prover.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <unordered_map>

namespace funmem {

const char* answer_name(Answer a) {
  switch (a) {
  case Answer::Disjoint:
    return "disjoint";
  case Answer::Overlap:
    return "overlap";
  case Answer::Unknown:
    return "unknown";
  }
  return "unknown";
}

namespace {

// ---------------------------------------------------------------- concrete decision

enum class Found { Yes, No, TooBig };

/// Index tuple number t of a domain, row-major.
std::vector<int64_t> unrank(const ConcreteLmad& c, int64_t t) {
  std::vector<int64_t> idx(c.dims.size());
  for (size_t k = c.dims.size(); k-- > 0;) {
    idx[k] = t % c.dims[k].first;
    t /= c.dims[k].first;
  }
  return idx;
}

/// Looks for a shared point by enumerating both domains (the smaller one into a table).
Found find_shared(const ConcreteLmad& a, const ConcreteLmad& b, int64_t limit, Witness& w) {
  auto na = a.domain_size(), nb = b.domain_size();
  if (!na || !nb || *na > limit || *nb > limit) return Found::TooBig;
  if (!a.fits() || !b.fits()) return Found::TooBig; // a point overflows
  bool swap = *na > *nb;
  const ConcreteLmad& s = swap ? b : a;
  const ConcreteLmad& l = swap ? a : b;
  std::unordered_map<int64_t, int64_t> table;
  for (int64_t t = 0; t < std::min(*na, *nb); ++t)
    table.emplace(s.apply(unrank(s, t)), t);
  for (int64_t t = 0; t < std::max(*na, *nb); ++t) {
    auto li = unrank(l, t);
    auto it = table.find(l.apply(li));
    if (it == table.end()) continue;
    auto si = unrank(s, it->second);
    w.point = it->first;
    w.index1 = swap ? li : si;
    w.index2 = swap ? si : li;
    return Found::Yes;
  }
  return Found::No;
}

bool in_domain(const ConcreteLmad& c, const std::vector<int64_t>& idx) {
  if (idx.size() != c.dims.size()) return false;
  for (size_t k = 0; k < idx.size(); ++k)
    if (idx[k] < 0 || idx[k] >= c.dims[k].first) return false;
  return true;
}

// ---------------------------------------------------------------- SOSIs

struct Interval { // NOLINT(bugprone-exception-escape): moving a Poly does not throw
  Poly lo, hi;
};

struct Sosi { // NOLINT(bugprone-exception-escape): moving a Poly does not throw
  Poly offset;
  std::vector<std::pair<Poly, Interval>> dims; // (stride, interval)
};

/// Two zero-offset SOSIs over the same strides (decreasing, by the sample order).
struct Pair {
  std::vector<Poly> strides;
  std::vector<Interval> a, b;
};

std::string interval_text(const Interval& i) {
  return "[" + i.lo.to_string() + ", " + i.hi.to_string() + "]";
}

std::string stride_text(const Poly& s) {
  std::string t = s.to_string();
  return s.terms().size() > 1 ? "(" + t + ")" : t;
}

std::string sosi_text(const Poly* offset, const std::vector<Poly>& strides,
                      const std::vector<Interval>& iv) {
  std::string s;
  if (offset) s = offset->to_string() + " + ";
  for (size_t k = 0; k < iv.size(); ++k)
    s += (k ? " + " : "") + interval_text(iv[k]) + "*" + stride_text(strides[k]);
  return iv.empty() && offset ? offset->to_string() : s.empty() ? "0" : s;
}

std::string pair_text(const Pair& p) {
  return "I1 = " + sosi_text(nullptr, p.strides, p.a) +
         "; I2 = " + sosi_text(nullptr, p.strides, p.b);
}

class SosiProver {
public:
  SosiProver(Solver& s, const ProverOptions& o, ProveResult& r) : solver_(s), opt_(o), res_(r) {}

  /// Runs steps 1-6; true when disjointness is proved (res_.proof is then set).
  bool run(const SymLmad& l1, const SymLmad& l2) {
    auto s1 = to_sosi(l1, "L1"), s2 = to_sosi(l2, "L2");
    if (!s1 || !s2) return false;
    std::vector<Poly> order = stride_order(*s1, *s2);
    Pair p;
    p.strides = order;
    p.a = place(*s1, order);
    p.b = place(*s2, order);
    std::string text = "matched strides: I1 = " + sosi_text(&s1->offset, order, p.a) +
                       "; I2 = " + sosi_text(&s2->offset, order, p.b);
    res_.steps.push_back(text);
    distribute(p, s1->offset - s2->offset);
    res_.steps.push_back("distributed offsets: " + pair_text(p));
    ProofNode root;
    if (!prove(p, 0, root)) {
      res_.reason = reason_.empty() ? "no separating interval pair was found" : reason_;
      return false;
    }
    res_.proof = std::move(root);
    return true;
  }

private:
  Solver& solver_;
  const ProverOptions& opt_;
  ProveResult& res_;
  int nodes_ = 0;
  std::string reason_;

  bool proves(const Formula& f, std::vector<std::string>* log = nullptr) {
    bool ok = solver_.proves(f);
    if (ok && log) log->push_back(f.to_string());
    return ok;
  }

  /// Steps 1-2: normalise (positive strides; zero strides dropped, a superset) and
  /// turn into a SOSI with intervals [0, count-1].
  std::optional<Sosi> to_sosi(const SymLmad& l, const char* name) {
    std::vector<std::string> notes;
    std::string undecided;
    const SignOracle by_facts = [&](const Poly& d) -> std::optional<int> {
      if (proves(gt(d, Poly(0)))) return 1;
      if (proves(lt(d, Poly(0)))) return -1;
      if (proves(eq(d, Poly(0)))) return 0;
      undecided = d.to_string();
      return std::nullopt;
    };
    std::optional<SymLmad> positive = lmad_positive_strides(l, by_facts, true, &notes);
    if (!positive) {
      reason_ =
          "the sign of stride " + undecided + " of " + name + " is not determined by the facts";
      res_.reason = reason_;
      return std::nullopt;
    }
    Sosi s;
    s.offset = positive->offset;
    for (const auto& [c, d] : positive->dims)
      s.dims.push_back({d, {Poly(0), c - 1}});
    std::string t = std::string("SOSI ") + name + " = " + s.offset.to_string();
    for (auto& [d, iv] : s.dims)
      t += " + " + interval_text(iv) + "*" + stride_text(d);
    for (auto& n : notes)
      t += " (" + n + ")";
    res_.steps.push_back(t);
    return s;
  }

  /// Step 3: the union of both stride sets, ordered by value at a sample assignment of
  /// the facts (the order only guides the search; soundness does not depend on it).
  std::vector<Poly> stride_order(const Sosi& a, const Sosi& b) {
    std::vector<Poly> all;
    for (const Sosi* s : {&a, &b})
      for (auto& [d, iv] : s->dims)
        if (std::find(all.begin(), all.end(), d) == all.end()) all.push_back(d);
    std::set<std::string> vars;
    for (const Poly& d : all)
      for (auto& v : d.free_vars())
        vars.insert(v);
    for (const Formula& f : solver_.facts())
      for (auto& v : f.free_vars())
        vars.insert(v);
    Env sample;
    std::vector<Formula> pos;
    pos.reserve(all.size());
    for (const Poly& d : all)
      pos.push_back(gt(d, Poly(0)));
    if (!vars.empty()) solver_.check(pos, {vars.begin(), vars.end()}, &sample, opt_.timeout_ms);
    auto value = [&](const Poly& p) -> int64_t {
      auto v = p.eval(sample);
      return v ? *v : 0;
    };
    std::stable_sort(all.begin(), all.end(),
                     [&](const Poly& x, const Poly& y) { return value(x) > value(y); });
    // Strides proved equal are one stride.
    std::vector<Poly> out;
    for (const Poly& d : all) {
      bool merged = false;
      for (const Poly& o : out)
        if (value(o) == value(d) && proves(eq(o, d))) merged = true;
      if (!merged) out.push_back(d);
    }
    return out;
  }

  /// Places a SOSI's intervals on the matched strides (empty dimensions [0, 0]; two
  /// intervals on one stride are summed, which can only grow the set).
  std::vector<Interval> place(const Sosi& s, const std::vector<Poly>& order) {
    std::vector<Interval> out(order.size(), Interval{Poly(0), Poly(0)});
    for (auto& [d, iv] : s.dims) {
      size_t k = 0;
      while (k < order.size() && !(order[k] == d) && !solver_.proves(eq(order[k], d)))
        ++k;
      if (k == order.size()) continue; // unreachable: every stride is in the order
      out[k].lo = out[k].lo + iv.lo;
      out[k].hi = out[k].hi + iv.hi;
    }
    return out;
  }

  /// Step 4: writes d = sum c_k * stride_k (+ r * 1) by greedy division from the largest
  /// stride and shifts I1's intervals by c_k; exact, so the question is unchanged.
  void distribute(Pair& p, Poly d) {
    std::vector<Poly> c(p.strides.size(), Poly(0));
    for (size_t k = 0; k < p.strides.size() && !(d == Poly(0)); ++k) {
      const Poly& s = p.strides[k];
      if (auto sk = s.constant()) {
        if (*sk == 0) continue;
        Poly q, r;
        for (const auto& [m, coef] : d.terms()) {
          q = q + Poly::monomial(m, coef / *sk);
          r = r + Poly::monomial(m, coef % *sk);
        }
        c[k] = q;
        d = r;
      } else {
        auto [q, r] = Poly::divide(d, s);
        c[k] = q;
        d = r;
      }
    }
    if (!(d == Poly(0))) {
      p.strides.push_back(Poly(1));
      p.a.push_back({Poly(0), Poly(0)});
      p.b.push_back({Poly(0), Poly(0)});
      c.push_back(d);
    }
    for (size_t k = 0; k < c.size(); ++k) {
      p.a[k].lo = p.a[k].lo + c[k];
      p.a[k].hi = p.a[k].hi + c[k];
    }
  }

  /// Folds single-point intervals back into the offsets and distributes again.
  void renormalize(Pair& p) {
    Poly d = 0;
    for (size_t k = 0; k < p.strides.size(); ++k) {
      if (p.a[k].lo == p.a[k].hi && !(p.a[k].lo == Poly(0))) {
        d = d + p.a[k].lo * p.strides[k];
        p.a[k] = {Poly(0), Poly(0)};
      }
      if (p.b[k].lo == p.b[k].hi && !(p.b[k].lo == Poly(0))) {
        d = d - p.b[k].lo * p.strides[k];
        p.b[k] = {Poly(0), Poly(0)};
      }
    }
    distribute(p, d);
  }

  /// The cross condition C(q) in one direction: stride_q > sum_{k>q} (hi_k - lo_k) * stride_k.
  Formula cross(const Pair& p, size_t q, const std::vector<Interval>& hi_side,
                const std::vector<Interval>& lo_side) {
    Poly sum = 0;
    for (size_t k = q + 1; k < p.strides.size(); ++k)
      sum = sum + (hi_side[k].hi - lo_side[k].lo) * p.strides[k];
    return gt(p.strides[q], sum);
  }

  /// Steps 5-6 with splitting; `node` receives the proof when true.
  bool prove(const Pair& p, int depth, ProofNode& node) {
    node.pair = pair_text(p);
    if (++nodes_ > opt_.max_nodes) {
      reason_ = "search budget of " + std::to_string(opt_.max_nodes) + " SOSI pairs exhausted";
      return false;
    }
    size_t n = p.strides.size();
    std::optional<size_t> fail_q;
    for (size_t at = 0; at < n; ++at) {
      std::vector<std::string> log;
      bool sep =
          proves(lt(p.a[at].hi, p.b[at].lo), &log) || proves(lt(p.b[at].hi, p.a[at].lo), &log);
      if (!sep) continue;
      bool ok = true;
      for (size_t q = 0; q <= at && ok && !opt_.broken_no_cross; ++q) {
        ok = proves(cross(p, q, p.b, p.a), &log) && proves(cross(p, q, p.a, p.b), &log);
        if (!ok && (!fail_q || q < *fail_q)) fail_q = q;
      }
      if (ok) {
        node.step = "disjoint: the intervals at stride " + p.strides[at].to_string() + ", " +
                    interval_text(p.a[at]) + " and " + interval_text(p.b[at]) +
                    ", do not overlap, and no stride up to it is reached by the spans below it";
        node.proved = std::move(log);
        return true;
      }
    }
    if (depth >= opt_.max_split_depth) {
      if (reason_.empty()) reason_ = "split depth limit reached";
      return false;
    }
    // Split: peel the last (then the first) element off an interval below the first
    // stride whose cross condition failed, in I1 or in I2.
    size_t from = fail_q ? *fail_q + 1 : 1;
    for (int peel_last = 1; peel_last >= 0; --peel_last) {
      for (size_t k = from; k < n; ++k) {
        for (int side = 0; side < 2; ++side) {
          const Interval& iv = side == 0 ? p.a[k] : p.b[k];
          if (iv.lo == iv.hi) continue;
          if (!proves(le(iv.lo, iv.hi))) continue; // only non-empty intervals are split
          Pair rest = p, point = p;
          Interval& r = side == 0 ? rest.a[k] : rest.b[k];
          Interval& pt = side == 0 ? point.a[k] : point.b[k];
          if (peel_last) {
            r.hi = iv.hi - 1;
            pt = {iv.hi, iv.hi};
          } else {
            r.lo = iv.lo + 1;
            pt = {iv.lo, iv.lo};
          }
          std::string how = std::string("split I") + (side == 0 ? "1" : "2") + " at stride " +
                            p.strides[k].to_string() + ": " + interval_text(iv) + " = " +
                            interval_text(r) + " + {" + pt.lo.to_string() + "}";
          renormalize(point);
          ProofNode c1, c2;
          if (!prove(rest, depth + 1, c1)) continue;
          if (!prove(point, depth + 1, c2)) continue;
          node.step = how;
          node.children.push_back(std::move(c1));
          node.children.push_back(std::move(c2));
          return true;
        }
      }
    }
    return false;
  }
};

std::vector<std::string> all_vars(const SymLmad& a, const SymLmad& b,
                                  const std::vector<Formula>& facts) {
  std::set<std::string> v;
  for (auto& x : lmad_free_vars(a))
    v.insert(x);
  for (auto& x : lmad_free_vars(b))
    v.insert(x);
  for (const Formula& f : facts)
    for (auto& x : f.free_vars())
      v.insert(x);
  return {v.begin(), v.end()};
}

/// The membership problem: facts && 0 <= i_k < n_k && 0 <= j_k < m_k && L1(i) == L2(j).
std::vector<Formula> membership(const SymLmad& a, const SymLmad& b,
                                std::vector<std::string>& idx_names) {
  std::vector<Formula> out;
  std::vector<Poly> ia, ib;
  for (size_t k = 0; k < a.dims.size(); ++k) {
    idx_names.push_back("%i" + std::to_string(k));
    ia.push_back(Poly::var(idx_names.back()));
    out.push_back(le(Poly(0), ia.back()));
    out.push_back(lt(ia.back(), a.dims[k].first));
  }
  for (size_t k = 0; k < b.dims.size(); ++k) {
    idx_names.push_back("%j" + std::to_string(k));
    ib.push_back(Poly::var(idx_names.back()));
    out.push_back(le(Poly(0), ib.back()));
    out.push_back(lt(ib.back(), b.dims[k].first));
  }
  out.push_back(eq(lmad_apply(a, ia), lmad_apply(b, ib)));
  return out;
}

/// A witness from an assignment: both LMADs evaluated and a shared point found.
bool confirm(const SymLmad& a, const SymLmad& b, const Env& env, const ProverOptions& opt,
             const std::vector<int64_t>* hint1, const std::vector<int64_t>* hint2, Witness& w) {
  auto ca = lmad_eval(a, env), cb = lmad_eval(b, env);
  if (!ca || !cb) return false;
  w.assignment = env;
  if (hint1 && hint2 && in_domain(*ca, *hint1) && in_domain(*cb, *hint2) && ca->fits() &&
      cb->fits() && ca->apply(*hint1) == cb->apply(*hint2)) {
    w.point = ca->apply(*hint1);
    w.index1 = *hint1;
    w.index2 = *hint2;
    return true;
  }
  return find_shared(*ca, *cb, opt.enumerate_limit, w) == Found::Yes;
}

/// SOSI with case splits on small counts (see run); nullopt when a case is not proved.
std::optional<ProofNode> split_prove(const SymLmad& l1, const SymLmad& l2,
                                     const std::vector<Formula>& facts, Solver& solver,
                                     const ProverOptions& opt, int depth) {
  // The count to split on: names first (they can be substituted), then expressions.
  std::optional<Poly> count;
  bool maybe_empty = false;
  for (int pass = 0; pass < 2 && !count; ++pass)
    for (const SymLmad* l : {&l1, &l2})
      for (const auto& [c, d] : l->dims) {
        auto fv = c.free_vars();
        bool is_name = fv.size() == 1 && c == Poly::var(fv[0]);
        if (count || fv.empty() || (pass == 0) != is_name) continue;
        if (solver.proves(ge(c, Poly(2)))) continue;
        count = c;
        maybe_empty = !solver.proves(ge(c, Poly(1)));
      }
  if (!count) return std::nullopt;
  const Poly v = *count;
  auto fv = v.free_vars();
  const bool is_name = fv.size() == 1 && v == Poly::var(fv[0]);
  const std::string shown = v.to_string();
  const std::string* name = &shown;
  ProofNode node;
  node.step = "case split on " + *name + (maybe_empty ? " <= 0, " : " ") + "== 1, >= 2";
  if (maybe_empty) {
    ProofNode empty;
    empty.step = "when " + *name + " <= 0: a count " + *name + " is <= 0, the set is empty";
    node.children.push_back(empty);
  }
  for (int k = 0; k < 2; ++k) {
    std::map<std::string, Poly> one;
    if (is_name) one[fv[0]] = Poly(1);
    std::vector<Formula> f2;
    SymLmad a = l1, b = l2;
    if (k == 0 && !is_name) {
      f2 = facts;
      f2.push_back(eq(v, Poly(1)));
    } else if (k == 0) {
      for (const Formula& f : facts)
        f2.push_back(f.substitute(one));
      a = lmad_substitute(l1, one);
      b = lmad_substitute(l2, one);
    } else {
      f2 = facts;
      f2.push_back(ge(v, Poly(2)));
    }
    Solver s2(f2, opt.timeout_ms);
    ProveResult sub;
    SosiProver sp(s2, opt, sub);
    std::optional<ProofNode> child;
    if (sp.run(a, b) && sub.proof)
      child = std::move(*sub.proof);
    else if (depth > 1)
      child = split_prove(a, b, f2, s2, opt, depth - 1);
    if (!child) return std::nullopt;
    child->step =
        (k == 0 ? "when " + *name + " == 1: " : "when " + *name + " >= 2: ") + child->step;
    node.children.push_back(std::move(*child));
  }
  return node;
}

/// A witness by a small-value search: assignments of `vars` from small values that
/// satisfy the facts, each confirmed by evaluation. True (and `res` the overlap) when
/// one is found.
bool small_value_witness(const SymLmad& l1, const SymLmad& l2, const std::vector<std::string>& vars,
                         const std::vector<Formula>& facts, const ProverOptions& opt,
                         ProveResult& res) {
  bool found = false;
  for_each_assignment(
      vars, {1, 2, 3, 0, 4, 5, -1, 6, 7, 8, 10, 16, -2},
      [&](const Env& env) {
        Witness w;
        if (all_hold(facts, env) && confirm(l1, l2, env, opt, nullptr, nullptr, w)) {
          res.answer = Answer::Overlap;
          res.method = "witness";
          res.reason = "small-value search, confirmed by evaluation";
          res.witness = w;
          found = true;
        }
        return !found;
      },
      static_cast<size_t>(std::max(0, opt.witness_candidates)));
  return found;
}

ProveResult run(const SymLmad& l1, const SymLmad& l2, Solver& solver, const ProverOptions& opt) {
  ProveResult res;
  const auto& facts = solver.facts();
  std::vector<std::string> vars = all_vars(l1, l2, facts);
  res.steps.push_back("L1 = " + l1.to_string());
  res.steps.push_back("L2 = " + l2.to_string());

  // The facts themselves: contradictory facts make every question vacuous, and a
  // model of them is the assignment of a concrete witness.
  Env fact_model;
  SatResult facts_sat = SatResult::Sat;
  if (!facts.empty()) {
    std::vector<std::string> fvars;
    for (const Formula& f : facts)
      for (auto& v : f.free_vars())
        fvars.push_back(v);
    facts_sat = solver.check({}, fvars, &fact_model, opt.search_timeout_ms);
  }
  if (facts_sat == SatResult::Unsat) {
    res.answer = Answer::Disjoint;
    res.method = "facts";
    res.reason = "the facts are contradictory";
    return res;
  }
  bool concrete = lmad_free_vars(l1).empty() && lmad_free_vars(l2).empty();
  if (concrete && facts_sat == SatResult::Sat) {
    std::string err;
    auto c1 = lmad_eval(l1, {}, &err), c2 = lmad_eval(l2, {}, &err);
    if (c1 && c2 && opt.enumerate_concrete) {
      Witness w;
      Found f = find_shared(*c1, *c2, opt.enumerate_limit, w);
      if (f != Found::TooBig) {
        res.method = "enumeration";
        res.answer = f == Found::Yes ? Answer::Overlap : Answer::Disjoint;
        w.assignment = fact_model;
        if (f == Found::Yes) res.witness = w;
        res.reason = f == Found::Yes ? "a shared point" : "every point enumerated, none shared";
        return res;
      }
    }
  }
  // Empty sets: a count <= 0.
  for (const SymLmad* l : {&l1, &l2})
    for (const auto& [c, s] : l->dims)
      if (solver.proves(le(c, Poly(0)))) {
        res.answer = Answer::Disjoint;
        res.method = "empty";
        res.reason =
            std::string(l == &l1 ? "L1" : "L2") + " is empty: count " + c.to_string() + " <= 0";
        return res;
      }
  if (opt.sosi) {
    SosiProver sp(solver, opt, res);
    if (sp.run(l1, l2)) {
      res.answer = Answer::Disjoint;
      res.method = "sosi";
      res.reason.clear();
      return res;
    }
  }
  std::string sosi_reason = res.reason;
  // Counts that are names the facts allow to be small (a block size b > 0, a thread
  // count k >= 0) often defeat SOSI only through the degenerate cases, where a
  // dimension is empty or one point and the strides may order differently: split into
  // k <= 0 (the set is empty), k == 1 (substituted) and k >= 2, up to two names deep.
  // Sound: the cases cover every assignment the facts allow.
  if (opt.sosi && opt.case_split) {
    if (auto node = split_prove(l1, l2, facts, solver, opt, 2)) {
      res.answer = Answer::Disjoint;
      res.method = "sosi";
      res.reason.clear();
      res.proof = std::move(*node);
      return res;
    }
  }
  // Whole membership question: unsat is a proof, a model is a witness candidate.
  if (opt.membership) {
    std::vector<std::string> idx;
    auto extra = membership(l1, l2, idx);
    std::vector<std::string> names = vars;
    names.insert(names.end(), idx.begin(), idx.end());
    Env model;
    SatResult r = solver.check(extra, names, &model, concrete ? 0 : opt.search_timeout_ms);
    if (r == SatResult::Unsat) {
      res.answer = Answer::Disjoint;
      res.method = "z3";
      res.reason = "Z3 refuted the whole membership problem";
      return res;
    }
    if (r == SatResult::Sat) {
      Env env;
      std::vector<int64_t> h1, h2;
      for (auto& v : vars)
        env[v] = model[v];
      for (size_t k = 0; k < l1.dims.size(); ++k)
        h1.push_back(model["%i" + std::to_string(k)]);
      for (size_t k = 0; k < l2.dims.size(); ++k)
        h2.push_back(model["%j" + std::to_string(k)]);
      Witness w;
      if (confirm(l1, l2, env, opt, &h1, &h2, w)) {
        res.answer = Answer::Overlap;
        res.method = "witness";
        res.reason = "Z3 model of the membership problem, confirmed by evaluation";
        res.witness = w;
        return res;
      }
    }
  }
  if (!vars.empty() && !concrete && opt.witness_search &&
      small_value_witness(l1, l2, vars, facts, opt, res))
    return res;
  res.answer = Answer::Unknown;
  res.reason = sosi_reason.empty() ? "not proved and no witness found" : sosi_reason;
  return res;
}

std::string env_text(const Env& env) {
  std::string s;
  for (auto& [k, v] : env)
    s += (s.empty() ? "" : ", ") + k + " = " + std::to_string(v);
  return s;
}

std::string index_text(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t k = 0; k < v.size(); ++k)
    s += (k ? ", " : "") + std::to_string(v[k]);
  return s + ")";
}

int count_leaves(const ProofNode& n) {
  if (n.children.empty()) return 1;
  int k = 0;
  for (auto& c : n.children)
    k += count_leaves(c);
  return k;
}

void explain_node(const ProofNode& n, int depth, std::string& out) {
  std::string ind(static_cast<size_t>(2 * depth), ' ');
  out += ind + n.pair + "\n";
  out += ind + "  => " + n.step + "\n";
  for (auto& p : n.proved)
    out += ind + "     proved: " + p + "\n";
  for (auto& c : n.children)
    explain_node(c, depth + 1, out);
}

} // namespace

ProveResult prove_disjoint(const SymLmad& l1, const SymLmad& l2, Solver& solver,
                           const ProverOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  SolverStats before = solver.stats();
  ProveResult r;
  try {
    r = run(l1, l2, solver, opt);
  } catch (const SymbolicOverflow& e) {
    r.answer = Answer::Unknown;
    r.reason = std::string("symbolic overflow: ") + e.what();
  }
  SolverStats after = solver.stats();
  r.stats.queries = after.queries - before.queries;
  r.stats.cache_hits = after.cache_hits - before.cache_hits;
  r.stats.trivial = after.trivial - before.trivial;
  r.stats.z3_calls = after.z3_calls - before.z3_calls;
  r.stats.z3_unknown = after.z3_unknown - before.z3_unknown;
  r.stats.wall_guard = after.wall_guard - before.wall_guard;
  r.stats.z3_ms = after.z3_ms - before.z3_ms;
  r.stats.z3_work = after.z3_work - before.z3_work;
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

ProveResult prove_disjoint(const SymLmad& l1, const SymLmad& l2, const std::vector<Formula>& facts,
                           const ProverOptions& opt) {
  Solver s(facts, opt.timeout_ms);
  return prove_disjoint(l1, l2, s, opt);
}

SatResult z3_membership(const SymLmad& l1, const SymLmad& l2, Solver& solver, unsigned timeout_ms) {
  std::vector<std::string> idx;
  return solver.check(membership(l1, l2, idx), {}, nullptr, timeout_ms);
}

std::string summary(const ProveResult& r) {
  std::string s = answer_name(r.answer);
  switch (r.answer) {
  case Answer::Disjoint:
    if (r.method == "sosi" && r.proof)
      s += ": SOSI proof, " + std::to_string(count_leaves(*r.proof)) + " interval pair(s)";
    else
      s += ": " + r.reason;
    break;
  case Answer::Overlap:
    if (r.witness) {
      s += ": point " + std::to_string(r.witness->point) + " = L1" + index_text(r.witness->index1) +
           " = L2" + index_text(r.witness->index2);
      if (!r.witness->assignment.empty()) s += " when " + env_text(r.witness->assignment);
    }
    break;
  case Answer::Unknown:
    s += ": " + r.reason;
    break;
  }
  return s;
}

std::string explain(const ProveResult& r) {
  std::string out = summary(r) + "\n";
  for (auto& st : r.steps)
    out += "  " + st + "\n";
  if (r.proof) explain_node(*r.proof, 1, out);
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "  (%d side conditions: %d by Z3, %d from the cache, %d constant; %.1f ms)\n",
                r.stats.queries, r.stats.z3_calls, r.stats.cache_hits, r.stats.trivial, r.ms);
  out += buf;
  return out;
}

} // namespace funmem
