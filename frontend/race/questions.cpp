// The questions of a pair of accesses (checker.h): for each concurrency and each split
// of the thread space, the other threads' set against this thread's, with their facts.
#include "frontend/race/checker.h"

namespace funmem::frontend::detail {

void Checker::add_products(std::vector<Formula>& facts) const {
  std::vector<Formula> extra;
  for (const Formula& f : facts) {
    if (f.kind != Formula::Kind::Cmp || f.rel == Rel::Eq || f.rel == Rel::Ne) continue;
    if (f.lhs.degree() > 1 || f.rhs.degree() > 1) continue;
    for (int d : dims_) {
      bool mentions = false;
      for (const std::string& v : f.free_vars())
        mentions = mentions || v == bdim(d);
      if (mentions) continue;
      Poly size = Poly::var(bdim(d));
      extra.push_back(Formula::cmp(f.lhs * size, f.rel, f.rhs * size));
    }
  }
  facts.insert(facts.end(), extra.begin(), extra.end());
}

std::optional<int64_t> Checker::fixed_size(const std::string& name) const {
  for (const Formula& f : given_)
    if (f.kind == Formula::Kind::Cmp && f.rel == Rel::Eq) {
      if (f.lhs == Poly::var(name) && f.rhs.constant()) return f.rhs.constant();
      if (f.rhs == Poly::var(name) && f.lhs.constant()) return f.lhs.constant();
    }
  return std::nullopt;
}

void Checker::questions(const Access& w, const Access& a, const Pass& pass, KernelVerdict& v,
                        std::string& first_open) {
  for (bool same_block : concurrency(w, a)) {
    std::set<std::string> shared = shared_counters(w, a, same_block);
    // Thread t: its own names. Thread t': primed names (shared counters stay).
    PairSets p;
    p.same_block = same_block;
    p.l1 = set_of(w, {}, shared, p.exp1, &p.why);
    std::map<std::string, Poly> ren = other_thread(a, shared);
    std::set<std::string> exp2;
    std::optional<SymLmad> l2;
    if (p.l1) l2 = set_of(a, ren, shared, exp2, &p.why);
    p.facts = pair_facts(w, a, ren, shared, p.exp1);
    std::vector<Formula> guards2 = other_guards(a, ren, same_block, pass);
    for (auto& [what, l, keep] : split_questions(l2, guards2, same_block))
      ask(w, a, pass, p, what, l, keep, v, first_open);
  }
}

std::vector<Formula> Checker::pair_facts(const Access& w, const Access& a,
                                         const std::map<std::string, Poly>& ren,
                                         const std::set<std::string>& shared,
                                         const std::set<std::string>& exp1) const {
  // The launch, t's guards on names that are not expanded, shared counters.
  std::vector<Formula> facts = launch_;
  // Bounds of the unknowns (facts over other names, such as a `?:`'s, may mention
  // names the sets expand: only the formula question uses them).
  for (const Formula& f : k_.unknown_facts) {
    bool own = true;
    for (const std::string& x : f.free_vars())
      own = own && x.rfind("fm_any_", 0) == 0;
    if (!own) continue;
    facts.push_back(f);
    facts.push_back(f.substitute(ren));
  }
  for (const Formula& g : w.guards)
    if (!mentions_any(g.free_vars(), exp1)) facts.push_back(g);
  for (const Access* x : {&w, &a})
    for (const LoopCtx& lp : x->loops)
      if (shared.count(lp.var)) facts.insert(facts.end(), lp.facts.begin(), lp.facts.end());
  return facts;
}

std::vector<Formula> Checker::other_guards(const Access& a, const std::map<std::string, Poly>& ren,
                                           bool same_block, const Pass& pass) const {
  // The other thread's guards on its own thread variables narrow its ranges.
  std::vector<Formula> guards2;
  if (pass.narrow_threads) {
    // In the same block t' has t's block indices: its guards may use them.
    std::map<std::string, Poly> same;
    if (same_block && pass.same_block_guards)
      for (int d : dims_)
        same[primed(bid(d))] = Poly::var(bid(d));
    for (const Formula& g : a.guards)
      guards2.push_back(same.empty() ? g.substitute(ren) : g.substitute(ren).substitute(same));
  }
  return guards2;
}

std::vector<Checker::SplitQuestion> Checker::split_questions(const std::optional<SymLmad>& l2,
                                                             const std::vector<Formula>& guards2,
                                                             bool same_block) {
  // A question, and the thread dimensions of t's block to keep at the block's size
  // (against the blocks above, those merged with the split block index: the split
  // separates them, a guard's bound could reach into the next block).
  std::vector<SplitQuestion> qs;
  for (size_t di = 0; di < dims_.size(); ++di) {
    for (bool below : {true, false}) {
      std::optional<SymLmad> l = l2;
      std::string what = std::string(same_block ? "same block" : "another block") + ", " +
                         kDims[dims_[di]] + (below ? " below" : " above");
      std::vector<Formula> g2 = guards2;
      std::set<std::string> merged;
      std::vector<std::tuple<std::string, Range, int>> global_ids;
      if (!same_block && l) merge_global_ids(*l, g2, di, below, merged, global_ids);
      // Dimensions after the split one: any value; before: equal; the split one:
      // below or above. For another block every thread dimension is free.
      for (size_t e = dims_.size(); e-- > 0 && l;) {
        int d = dims_[e];
        std::string tv = primed(tid(d)), bv = primed(bid(d));
        Range full_t{0, Poly::var(bdim(d))}, full_b{0, Poly::var(gdim(d))};
        if (same_block) {
          *l = lmad_substitute(*l, {{bv, Poly::var(bid(d))}});
          if (e > di) {
            l = over(*l, tv, narrow(tv, full_t, g2));
          } else if (e == di) {
            Poly t = Poly::var(tid(d));
            Range r = below ? Range{0, t} : Range{t + 1, Poly::var(bdim(d)) - t - 1};
            // Either bound (the split's or the guards') gives a superset.
            auto [glo, ghi] = guard_bounds(tv, g2, other_names(g2));
            if (below && glo) r = Range{*glo, t - *glo};
            if (!below && ghi) r = Range{t + 1, *ghi - t - 1};
            l = over(*l, tv, r);
          } else {
            *l = lmad_substitute(*l, {{tv, Poly::var(tid(d))}});
          }
        } else if (!merged.count(tv)) {
          l = over(*l, tv, narrow(tv, full_t, g2));
        }
      }
      if (!same_block) {
        for (size_t e = dims_.size(); e-- > 0 && l;) {
          int d = dims_[e];
          std::string bv = primed(bid(d));
          Poly b = Poly::var(bid(d));
          if (merged.count(bv)) continue;
          if (e > di) {
            l = over(*l, bv, narrow(bv, Range{0, Poly::var(gdim(d))}, g2));
          } else if (e == di) {
            Range r = below ? Range{0, b} : Range{b + 1, Poly::var(gdim(d)) - b - 1};
            auto [glo, ghi] = guard_bounds(bv, g2, other_names(g2));
            if (below && glo) r = Range{*glo, b - *glo};
            if (!below && ghi) r = Range{b + 1, *ghi - b - 1};
            l = over(*l, bv, r);
          } else
            *l = lmad_substitute(*l, {{bv, b}});
        }
      }
      for (const auto& [g, r, split] : global_ids) {
        if (!l) break;
        // The split's bound stays (it separates the blocks); the guards may tighten
        // the other side.
        auto [glo, ghi] = guard_bounds(g, g2, other_names(g2));
        Range rg = r;
        if (split >= 0) {
          if (split == 1 && glo) rg = Range{*glo, r.lower + r.span - *glo};
          if (split == 0 && ghi) rg = Range{r.lower, *ghi - r.lower};
        } else {
          rg = narrow(g, r, g2);
        }
        l = over(*l, g, rg);
      }
      std::set<int> keep;
      for (const auto& [g, r, split] : global_ids)
        if (split == 0) // t's block against the blocks above: its own upper end
          for (int d : dims_)
            if (g.find(std::string("gid_") + kDims[d] + "_") == 0) keep.insert(d);
      qs.emplace_back(what, l, keep);
    }
  }
  return qs;
}

void Checker::ask(const Access& w, const Access& a, const Pass& pass, const PairSets& p,
                  const std::string& what, const std::optional<SymLmad>& l,
                  const std::set<int>& keep, KernelVerdict& v, std::string& first_open) {
  // Proved in an earlier pass over the same pair: the same question, kept.
  if (const size_t idx = v.questions.size();
      pass.proved && idx < pass.proved->questions.size() &&
      pass.proved->questions[idx].result.answer == Answer::Disjoint) {
    v.questions.push_back(pass.proved->questions[idx]);
    v.questions.back().ms = 0;
    return;
  }
  const auto q0 = std::chrono::steady_clock::now();
  QuestionResult q;
  q.what = std::string(w.write ? "write " : "read ") + w.array + "[" +
           display_names(w.index.to_string()) + "] at " + std::to_string(w.pos.line) + ":" +
           std::to_string(w.pos.col) + " vs " + (a.write ? "write " : "read ") + a.array + "[" +
           display_names(a.index.to_string()) + "] at " + std::to_string(a.pos.line) + ":" +
           std::to_string(a.pos.col) + ", other thread in " + what;
  // Another block: the whole of t's block (a superset of t's accesses) against the
  // other blocks, the form in which the SOSI steps separate blocked layouts.
  std::optional<SymLmad> mine = p.l1;
  std::vector<Formula> fs = p.facts;
  if (!p.same_block && mine) {
    std::vector<Formula> own;
    if (pass.narrow_threads)
      for (const Formula& g : w.guards)
        own.push_back(g);
    for (size_t e = dims_.size(); e-- > 0 && mine;) {
      int d = dims_[e];
      Range block{0, Poly::var(bdim(d))};
      mine = over(*mine, tid(d), keep.count(d) ? block : narrow_own(tid(d), block, own, p.exp1));
    }
    fs.clear();
    for (const Formula& f : p.facts)
      if (!mentions_any(f.free_vars(), {tid(0), tid(1), tid(2)})) fs.push_back(f);
  }
  if (!mine || !l) {
    q.result.answer = Answer::Unknown;
    q.result.reason = p.why.empty() ? "the other threads' accesses are not one LMAD" : p.why;
  } else if (over_budget()) {
    q.result.answer = Answer::Unknown;
    q.result.reason = "the kernel's budget of " + std::to_string(opt_.budget_ms) +
                      " ms of solver work was spent before this question";
  } else {
    q.l1 = mine->to_string();
    q.l2 = l->to_string();
    std::string key = std::string(pass.quick ? "quick ; " : "full ; ") + q.l1 + " ; " + q.l2;
    for (const Formula& f : fs)
      key += " ; " + f.to_string();
    if (auto it = cache_.find(key); it != cache_.end()) {
      q.result = it->second;
    } else {
      q.result = prove_cases(*mine, *l, fs, pass.quick);
      if (q.result.answer == Answer::Unknown)
        if (auto boxed = box_diagonals(*l, *mine)) {
          // A superset of the other threads' set that SOSI can align, and the
          // guards scaled by the block sizes for the non-linear bounds it needs.
          std::vector<Formula> more = fs;
          add_products(more);
          ProveResult r = prove_cases(*mine, *boxed, more, pass.quick);
          if (r.answer == Answer::Disjoint) {
            q.l2 = boxed->to_string();
            r.reason = "the other threads' diagonal boxed: " + r.reason;
            q.result = r;
          }
        }
      cache_[key] = q.result;
    }
    if (q.result.answer == Answer::Overlap && q.result.witness)
      models_.push_back(q.result.witness->assignment);
  }
  if (q.result.answer != Answer::Disjoint && first_open.empty()) first_open = open_question(q);
  q.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - q0).count();
  v.questions.push_back(std::move(q));
}

} // namespace funmem::frontend::detail
