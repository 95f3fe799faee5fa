// The race checker (checker.h): the extractor's range checks (extract.h, RangeCheck).
// Its polynomials are C's values only where they stay in their types' ranges; each check
// is proved under the guards and loops of the use, the launch facts and CUDA's launch
// limits. Where that fails, the grid's global indices are assumed to fit in 31 bits (as
// `int i = blockIdx.x * blockDim.x + threadIdx.x` assumes; said in the verdict); what
// still fails leaves the verdict `unknown` for a wrap C defines, and an assumption (said)
// for a signed overflow, which C leaves undefined.
#include "frontend/race/checker.h"

namespace funmem::frontend::detail {

std::vector<Formula> Checker::case_facts() const {
  std::vector<Formula> base;
  for (const Formula& f : launch_)
    if (f.kind != Formula::Kind::Or) base.push_back(f);
  base.insert(base.end(), k_.type_facts.begin(), k_.type_facts.end());
  add_launch_limits(base);
  return base;
}

std::optional<Formula> Checker::surviving_cases(const Formula& f,
                                                const std::vector<Formula>& facts) const {
  std::vector<Formula> keep;
  for (const Formula& d : f.kids) {
    Solver s(facts, opt_.prover.timeout_ms);
    if (s.check({d}, {}, nullptr, opt_.prover.timeout_ms) != SatResult::Unsat) keep.push_back(d);
  }
  if (keep.empty() || keep.size() == f.kids.size()) return std::nullopt;
  return keep.size() == 1 ? keep[0] : Formula::disj(keep);
}

KernelSummary Checker::pruned_guards() const {
  // A comparison of a signed value with an unsigned one is C's two cases (integers.cpp);
  // where the launch facts, the preconditions or the parameters' types exclude one, it
  // goes, so that the guard bounds its threads again (SOSI reads no disjunction). A case
  // goes when it contradicts those facts and the access's other guards (the conjunction
  // of the guards is unchanged).
  const std::vector<Formula> base = case_facts();
  std::map<std::string, std::optional<Formula>> done;
  auto prune = [&](const Formula& f, const std::vector<Formula>& others) -> std::optional<Formula> {
    std::string key = f.to_string();
    for (const Formula& o : others)
      key += "|" + o.to_string();
    auto [it, fresh] = done.emplace(key, std::nullopt);
    if (!fresh) return it->second;
    std::vector<Formula> facts = base;
    facts.insert(facts.end(), others.begin(), others.end());
    return it->second = surviving_cases(f, facts);
  };
  KernelSummary k = k_;
  for (Access& a : k.accesses) {
    std::vector<Formula> others;
    for (const Formula& g : a.guards)
      if (g.kind != Formula::Kind::Or) others.push_back(g);
    std::vector<Formula> guards;
    for (const Formula& g : a.guards) {
      std::optional<Formula> p = g.kind == Formula::Kind::Or ? prune(g, others) : std::nullopt;
      if (p && p->kind == Formula::Kind::And)
        guards.insert(guards.end(), p->kids.begin(), p->kids.end());
      else
        guards.push_back(p ? *p : g);
    }
    a.guards = std::move(guards);
  }
  return k;
}

void Checker::prune_given() {
  // A precondition comparing a signed value with an unsigned one is C's two cases
  // (integers.cpp); the launch limits often exclude one (`sz == blockDim.x` with sz < 0
  // would need a block of 2^31 threads). Dropping it keeps the facts simple for SOSI.
  const std::vector<Formula> base = case_facts();
  const size_t thread_facts = launch_.size() - given_.size();
  bool changed = false;
  std::vector<Formula> pruned;
  // A conjunction's parts as separate facts (what fixed_size and the search read).
  std::function<void(const Formula&)> add = [&](const Formula& f) {
    if (f.kind != Formula::Kind::And) return pruned.push_back(f);
    for (const Formula& k : f.kids)
      add(k);
  };
  for (const Formula& f : given_) {
    std::optional<Formula> kept =
        f.kind == Formula::Kind::Or ? surviving_cases(f, base) : std::nullopt;
    if (!kept) {
      pruned.push_back(f);
      continue;
    }
    add(*kept);
    changed = true;
  }
  given_ = std::move(pruned);
  if (!changed) return;
  launch_.resize(thread_facts);
  launch_.insert(launch_.end(), given_.begin(), given_.end());
}

void Checker::range_checks(std::string& first_open, std::vector<std::string>& assumed,
                           std::vector<std::string>& open_wraps,
                           std::vector<std::string>& open_obligations) const {
  std::set<std::string> asked;
  bool index_assumed = false;
  int undefined = 0;
  std::string first_undefined;
  // What the assumption of no signed overflow gives the other checks: where its guards
  // hold, its value lies in its type (outside loops, whose counters it would quantify).
  // Not a loop summary's (a wrong step would make its loop look empty to the others).
  std::vector<Formula> no_overflow;
  for (const RangeCheck& rc : k_.range_checks)
    if (rc.undefined && !rc.assumed && rc.loops.empty() && !rc.before_preconditions &&
        rc.obligation.empty()) {
      std::vector<Formula> either = {rc.cond};
      for (const Formula& g : rc.guards)
        either.push_back(negation(g));
      no_overflow.push_back(either.size() == 1 ? rc.cond : Formula::disj(either));
    }
  for (const RangeCheck& rc : k_.range_checks) {
    // The facts of a check differ only in what the key names (the rest is the kernel's).
    std::vector<Formula> own;
    add_loop_facts(rc.loops, own);
    own.insert(own.end(), rc.guards.begin(), rc.guards.end());
    std::string key =
        rc.cond.to_string() + (rc.undefined ? "!" : "?") + (rc.before_preconditions ? "<" : ">");
    for (const Formula& f : own)
      key += "|" + f.to_string();
    if (!asked.insert(key).second) continue;
    std::vector<Formula> fs = rc.before_preconditions ? without_preconditions_ : launch_;
    if (!rc.before_preconditions) fs.insert(fs.end(), k_.type_facts.begin(), k_.type_facts.end());
    add_launch_limits(fs);
    if (!rc.undefined && !rc.before_preconditions)
      fs.insert(fs.end(), no_overflow.begin(), no_overflow.end());
    fs.insert(fs.end(), k_.unknown_facts.begin(), k_.unknown_facts.end());
    fs.insert(fs.end(), own.begin(), own.end());
    if (rc.assumed) { // a 64-bit signed overflow: not expressible, assumed
      if (undefined++ == 0)
        first_undefined = "'" + rc.text + "' at " + std::to_string(rc.pos.line) + ":" +
                          std::to_string(rc.pos.col);
      continue;
    }
    const std::vector<Formula> goal = {negation(rc.cond)};
    // A signed overflow is only ever assumed (never `unknown`): a short attempt. With
    // the kernel's budget spent, a check is not proved.
    const unsigned budget =
        rc.undefined ? std::min(opt_.prover.timeout_ms, 50u) : opt_.prover.timeout_ms;
    const bool spent = over_budget();
    Solver s(fs, budget);
    if (rc.undefined) s.core_only();
    if (!spent && s.check(goal, {}, nullptr, budget) == SatResult::Unsat) continue;
    // Fewer than 2^31 threads in each dimension of the grid.
    for (int d : dims_) {
      fs.push_back(le(Poly::var(bid(d)) * Poly::var(bdim(d)) + Poly::var(tid(d)),
                      Poly((int64_t{1} << 31) - 1)));
      fs.push_back(le(Poly::var(gdim(d)) * Poly::var(bdim(d)), Poly((int64_t{1} << 31) - 1)));
    }
    Solver s2(fs, budget);
    if (rc.undefined) s2.core_only();
    if (!spent && s2.check(goal, {}, nullptr, budget) == SatResult::Unsat) {
      index_assumed = true;
      continue;
    }
    const std::string where = std::to_string(rc.pos.line) + ":" + std::to_string(rc.pos.col);
    if (rc.undefined) {
      if (undefined++ == 0) first_undefined = "'" + rc.text + "' at " + where;
      continue;
    }
    (rc.obligation.empty() ? open_wraps : open_obligations).push_back(rc.key);
    if (first_open.empty() && spent)
      first_open = "the budget of " + std::to_string(opt_.budget_ms) +
                   " ms of solver work was spent before '" + rc.text + "' at " + where +
                   " was proved to stay in " + rc.type;
    else if (first_open.empty() && !rc.obligation.empty())
      first_open = where + ": '" + rc.text + "': " + rc.obligation;
    else if (first_open.empty())
      first_open =
          where + ": '" + rc.text + "' " +
          (rc.type == kShiftOfNegative
               ? "may shift a negative value (C rounds it down; the model's division "
                 "rounds toward zero)"
               : "may leave the range of " + rc.type + " (C wraps it; the model does not follow)");
  }
  if (index_assumed) assumed.push_back("fewer than 2^31 threads in each dimension of the grid");
  if (undefined > 0)
    assumed.push_back("no signed overflow in " + first_undefined +
                      (undefined > 1 ? " (and " + std::to_string(undefined - 1) + " more)" : ""));
}

} // namespace funmem::frontend::detail
