// Thread sets (checker.h): an access over every thread of a range as one symbolic LMAD,
// the ranges narrowed by guards, global indices merged, diagonals boxed.
#include "frontend/model/rewrite.h"
#include "frontend/race/checker.h"

namespace funmem::frontend::detail {

std::vector<int> dims_used(const KernelSummary& k, const std::vector<Formula>& facts) {
  std::set<std::string> names(k.thread_names.begin(), k.thread_names.end());
  for (const Formula& f : facts) {
    // A size fixed to 1 is what an unused dimension has anyway.
    if (f.kind == Formula::Kind::Cmp && f.rel == Rel::Eq && f.rhs == Poly(1) &&
        f.lhs.free_vars().size() == 1)
      continue;
    for (const std::string& v : f.free_vars())
      names.insert(v);
  }
  std::vector<int> out{0};
  for (int d = 1; d < 3; ++d)
    if (names.count(tid(d)) || names.count(bid(d)) || names.count(bdim(d)) || names.count(gdim(d)))
      out.push_back(d);
  return out;
}

std::pair<std::optional<Poly>, std::optional<Poly>>
guard_bounds(const std::string& var, const std::vector<Formula>& guards,
             const std::set<std::string>& gone) {
  std::optional<Poly> lo, hi;
  auto add = [&](const Formula& g) {
    if (g.kind != Formula::Kind::Cmp) return;
    Poly p = g.lhs - g.rhs; // p REL 0
    Poly rest = p.substitute({{var, Poly(0)}});
    Poly coef = p - rest;
    int sign = coef == Poly::var(var) ? 1 : coef == -Poly::var(var) ? -1 : 0;
    if (sign == 0 || mentions(rest, var) || mentions_any(rest.free_vars(), gone)) return;
    // sign*var + rest REL 0  ->  var REL' -rest*sign
    Rel rel = g.rel;
    if (sign < 0)
      rel = rel == Rel::Lt   ? Rel::Gt
            : rel == Rel::Le ? Rel::Ge
            : rel == Rel::Gt ? Rel::Lt
            : rel == Rel::Ge ? Rel::Le
                             : rel;
    Poly e = sign > 0 ? -rest : rest;
    switch (rel) {
    case Rel::Lt:
      if (!hi) hi = e;
      break;
    case Rel::Le:
      if (!hi) hi = e + 1;
      break;
    case Rel::Gt:
      if (!lo) lo = e + 1;
      break;
    case Rel::Ge:
      if (!lo) lo = e;
      break;
    case Rel::Eq:
      if (!lo) lo = e;
      if (!hi) hi = e + 1;
      break;
    default:
      break;
    }
  };
  for (const Formula& g : guards) {
    if (g.kind == Formula::Kind::And)
      for (const Formula& k : g.kids)
        add(k);
    else
      add(g);
  }
  return {lo, hi};
}

std::set<std::string> other_names(const std::vector<Formula>& guards) {
  std::set<std::string> out;
  for (const Formula& g : guards)
    for (const std::string& v : g.free_vars())
      if (!v.empty() && v.back() == '\'') out.insert(v);
  return out;
}

/// Whether the end of a loop from `lower` counting `count` steps of `step` (step 1:
/// `lower + count`; else `count` is `(end - lower + step - 1) / step`) mentions no
/// built-in index. False where the count has another form.
bool end_is_uniform(const Poly& lower, const Poly& count, const Poly& step) {
  if (step == Poly(1)) return !mentions_builtin_index(lower + count);
  if (count.terms().size() != 1) return false;
  const auto& [m, c] = *count.terms().begin();
  if (c != 1 || m.size() != 1) return false;
  const auto& [atom, power] = *m.begin();
  if (power != 1 || atom->kind != AtomKind::Div || atom->args.size() != 2 ||
      !(atom->args[1] == step))
    return false;
  return !mentions_builtin_index(atom->args[0] + lower);
}

Range narrow(const std::string& var, Range r, const std::vector<Formula>& guards) {
  auto [lo, hi] = guard_bounds(var, guards, other_names(guards));
  Poly l = lo ? *lo : r.lower, h = hi ? *hi : r.lower + r.span;
  return Range{l, h - l};
}

std::optional<SymLmad> Checker::set_of(const Access& a, const std::map<std::string, Poly>& ren,
                                       const std::set<std::string>& shared,
                                       std::set<std::string>& expanded, std::string* why) {
  SymLmad l;
  l.offset = a.index.substitute(ren);
  for (size_t k = a.loops.size(); k-- > 0;) {
    const LoopCtx& lp = a.loops[k];
    if (shared.count(lp.var)) continue;
    if (lp.geometric) {
      *why = "the geometric loop over '" + lp.var +
             "' has no barrier; its iterations cannot be "
             "aggregated";
      return std::nullopt;
    }
    std::string c = ren.count(lp.var) ? ren.at(lp.var).to_string() : lp.var;
    std::string j = "iter%" + std::to_string(k); // expanded away: names may repeat
    Poly lower = lp.lower.substitute(ren), count = lp.count.substitute(ren);
    Poly step = lp.step.substitute(ren);
    // A grid-stride loop (`for (i = tid; i < n; i += blockDim.x * gridDim.x)`): its
    // count falls as the thread's start rises, so the count of the thread whose start
    // is smallest (every built-in index 0) bounds every thread's; with that count the
    // sets of all threads are one LMAD. Only when the end is the same for every thread
    // (`i < threadIdx.x` counts more in a later thread) and the start grows with the
    // indices: every term that mentions one has a positive coefficient and only
    // built-ins.
    if (mentions_builtin_index(count) && !mentions_builtin_index(step) &&
        end_is_uniform(lower, count, step)) {
      std::map<std::string, Poly> zero;
      for (const std::string& v : count.free_vars())
        if (is_builtin_index(v)) zero[v] = Poly(0);
      for (const std::string& v : lower.free_vars())
        if (is_builtin_index(v)) zero[v] = Poly(0);
      Poly rise = lower - lower.substitute(zero);
      bool grows = true;
      for (const auto& [m, coef] : rise.terms()) {
        (void)m;
        grows = grows && coef > 0;
      }
      for (const std::string& v : rise.free_vars())
        grows = grows && (is_builtin_index(v) || v.rfind("blockDim_", 0) == 0 ||
                          v.rfind("gridDim_", 0) == 0);
      if (grows) count = count.substitute(zero);
    }
    // A triangular nest (`for k < r` inside `for r < b`): the count grows with an outer
    // counter; the union over the outer loop is the count at its largest value.
    for (size_t o = 0; o < k; ++o) {
      const LoopCtx& out = a.loops[o];
      if (out.geometric || shared.count(out.var) || !(out.step == Poly(1))) continue;
      std::string oc = ren.count(out.var) ? ren.at(out.var).to_string() : out.var;
      if (!mentions(count, oc) || mentions(lower, oc)) continue;
      Poly rest = count.substitute({{oc, Poly(0)}});
      Poly coef = count - rest;
      Poly olo = out.lower.substitute(ren), ocount = out.count.substitute(ren);
      if (coef == Poly::var(oc))
        count = rest + olo + ocount - 1;
      else if (coef == -Poly::var(oc))
        count = rest - olo;
    }
    if (step == Poly(1)) {
      // The guards may bound the counter more tightly (`if (tx <= d && d - tx < b)`):
      // either bound is a superset of the iterations that access.
      std::vector<Formula> gs;
      for (const Formula& g : a.guards)
        gs.push_back(g.substitute(ren));
      auto [glo, ghi] = guard_bounds(c, gs, expanded);
      // Names expanded later (outer counters, the other thread's built-ins) must not
      // appear in the count.
      std::set<std::string> later;
      for (size_t o = 0; o < k; ++o)
        if (!shared.count(a.loops[o].var))
          later.insert(ren.count(a.loops[o].var) ? ren.at(a.loops[o].var).to_string()
                                                 : a.loops[o].var);
      auto stable = [&](const Poly& x) {
        for (const std::string& v : x.free_vars())
          if (later.count(v) || (!v.empty() && v.back() == '\'')) return false;
        return true;
      };
      const Poly hi0 = lower + count;
      for (int choice = 0; choice < 3; ++choice) {
        Poly lo = (choice != 2 && glo) ? *glo : lower, hi = (choice != 1 && ghi) ? *ghi : hi0;
        if (stable(hi - lo)) {
          count = hi - lo;
          lower = lo;
          break;
        }
      }
    }
    auto e = expand_loop(l, c, lower, step, count, j);
    if (!e) {
      *why = "the accesses of '" + a.text + "' over the loop on '" + lp.var +
             "' are not one LMAD (EXPAND failed)";
      return std::nullopt;
    }
    l = *e;
    expanded.insert(c);
  }
  return l;
}

Range Checker::narrow_own(const std::string& var, Range r, const std::vector<Formula>& guards,
                          const std::set<std::string>& gone) {
  auto [lo, hi] = guard_bounds(var, guards, gone);
  Poly l = lo ? *lo : r.lower, h = hi ? *hi : r.lower + r.span;
  return Range{l, h - l};
}

std::optional<SymLmad> Checker::box_diagonals(const SymLmad& l, const SymLmad& other) {
  std::vector<Poly> strides;
  for (const SymLmad* x : {&l, &other})
    for (const auto& d : x->dims)
      strides.push_back(d.second);
  SymLmad out = l;
  out.dims.clear();
  bool changed = false;
  for (const auto& [count, stride] : l.dims) {
    bool boxed = false;
    for (const Poly& s1 : strides) {
      auto k = (stride - s1).constant();
      if (s1 == stride || !k || *k < 1 || s1.is_constant()) continue;
      out.dims.emplace_back(count, s1);
      out.dims.emplace_back(count, Poly(*k));
      boxed = changed = true;
      break;
    }
    if (!boxed) out.dims.emplace_back(count, stride);
  }
  if (!changed) return std::nullopt;
  return out;
}

void Checker::merge_global_ids(SymLmad& l, std::vector<Formula>& guards, size_t di, bool below,
                               std::set<std::string>& merged,
                               std::vector<std::tuple<std::string, Range, int>>& ids) const {
  for (size_t e1 = di; e1 < dims_.size(); ++e1) {
    int d1 = dims_[e1];
    std::string bv = primed(bid(d1));
    Poly b = Poly::var(bid(d1)), gd = Poly::var(gdim(d1));
    Range rb = e1 > di ? Range{0, gd} : below ? Range{0, b} : Range{b + 1, gd - b - 1};
    for (int d2 : dims_) {
      std::string tv = primed(tid(d2));
      if (merged.count(tv) || merged.count(bv)) continue;
      // Only for a block size the launch fixes: with a symbolic one the ranges are
      // products of sizes, and the prover's side conditions on them took minutes
      // (LUD's kernels).
      std::vector<Poly> sizes;
      if (auto k = fixed_size(bdim(d2))) sizes = {Poly(*k), Poly::var(bdim(d2))};
      for (const Poly& k : sizes) {
        std::string g = primed("gid_" + std::string(kDims[d2]) + "_" + kDims[d1]);
        std::map<std::string, Poly> s = {{tv, Poly::var(g) - k * Poly::var(bv)}};
        SymLmad cand = lmad_substitute(l, s);
        std::vector<std::string> fv = lmad_free_vars(cand);
        if (std::find(fv.begin(), fv.end(), bv) != fv.end() ||
            std::find(fv.begin(), fv.end(), g) == fv.end())
          continue;
        l = cand;
        for (Formula& f : guards)
          f = f.substitute(s);
        merged.insert(tv);
        merged.insert(bv);
        // -1: a free block index; 1: the split's blocks below t's; 0: above.
        ids.emplace_back(g, Range{k * rb.lower, k * rb.span}, e1 > di ? -1 : below ? 1 : 0);
        break;
      }
    }
  }
}

} // namespace funmem::frontend::detail
