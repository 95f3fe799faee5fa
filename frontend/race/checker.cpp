// The race checker (checker.h): a kernel's verdict from its access pairs, assertions
// and the witness search; the launch facts it starts from.
#include "frontend/race/checker.h"

namespace funmem::frontend::detail {

KernelVerdict Checker::run() {
  const auto t0 = std::chrono::steady_clock::now();
  work0_ = Solver::thread_work();
  guards0_ = Solver::thread_wall_guards();
  KernelVerdict v;
  v.kernel = k_.name;
  v.pos = k_.pos;
  if (!k_.unsupported.empty()) {
    v.verdict = Verdict::Unsupported;
    const Problem& p = k_.unsupported.front();
    v.reason = std::to_string(p.pos.line) + ":" + std::to_string(p.pos.col) + ": " + p.what;
    if (k_.unsupported.size() > 1)
      v.reason += " (and " + std::to_string(k_.unsupported.size() - 1) + " more)";
    finish(v, t0);
    return v;
  }
  prune_given();
  check_assertions(v);
  std::string first_open, outside;
  object_bounds(first_open, outside);
  std::vector<std::string> assumed;
  range_checks(first_open, assumed, v.open_wraps, v.open_obligations);
  bool spent = false;
  for (size_t w = 0; w < k_.accesses.size() && !spent; ++w) {
    const Access& aw = k_.accesses[w];
    if (!aw.write) continue;
    for (size_t a = 0; a < k_.accesses.size(); ++a) {
      const Access& aa = k_.accesses[a];
      if (aa.array != aw.array) continue;
      // Atomics of one width touch the same bytes or none: they do not race.
      if (aw.atomic && aa.atomic && aw.width > 0 && aw.width == aa.width) continue;
      if (equal_values(aw, aa)) {
        benign_ = true;
        continue;
      }
      // Two writes: (w, a) and (a, w) ask the same (every pair of distinct threads).
      if (aa.write && a < w) continue;
      if (over_budget()) {
        spent = true;
        if (first_open.empty())
          first_open = "the budget of " + std::to_string(opt_.budget_ms) +
                       " ms of solver work was spent before every question was asked";
        break;
      }
      pair(aw, aa, v, first_open);
      // A race the prover's model points at, or one the search before the full prover
      // found (asking.cpp), confirmed on a small launch: done.
      if (!early_ && !first_open.empty() && !models_.empty()) early_ = search();
      if (early_) {
        const std::optional<RaceWitness> wit = early_;
        v.verdict = Verdict::Race;
        v.witness = wit;
        v.reason = "two threads access " + wit->array + "[" + std::to_string(wit->address) + "]";
        finish(v, t0);
        return v;
      }
      models_.clear();
    }
  }
  for (const Problem& p : k_.unknown)
    if (first_open.empty())
      first_open = std::to_string(p.pos.line) + ":" + std::to_string(p.pos.col) + ": " + p.what;
  check_value_facts(first_open);
  if (first_open.empty()) {
    v.verdict = Verdict::RaceFree;
    v.reason = std::to_string(v.questions.size()) + " question(s), every one disjoint";
    // The assumption the verdict rests on (GPUVerify's too), said where it matters.
    size_t objects = k_.pointer_params.size() + k_.global_vars.size();
    if (objects >= 2) v.reason += "; assumes distinct pointer parameters do not alias";
    if (k_.indirect_calls)
      v.reason += "; assumes a call through a function pointer reaches a function of this "
                  "file whose address it takes";
    if (!k_.bodyless_calls.empty()) {
      v.reason += "; assumes ";
      for (size_t i = 0; i < k_.bodyless_calls.size(); ++i)
        v.reason += (i ? ", " : "") + k_.bodyless_calls[i];
      v.reason += " (declared without a body) touch" +
                  std::string(k_.bodyless_calls.size() == 1 ? "es" : "") +
                  " none of the kernel's memory";
    }
    if (benign_) v.reason += "; assumes two writes of one value do not race";
    if (opt_.warp_sync > 0)
      v.reason += "; assumes warps of " + std::to_string(opt_.warp_sync) + " run in lock-step";
    if (opt_.only_intra_group) v.reason += "; threads of different blocks not checked";
    if (!outside.empty()) v.reason += "; " + outside;
    for (const std::string& a : assumed)
      v.reason += "; assumes " + a;
    // A dimension the kernel does not use is taken as 1 (threads that differ only there
    // would access alike): said unless the facts fix it.
    std::string unused;
    for (int d = 1; d < 3; ++d)
      if (std::find(dims_.begin(), dims_.end(), d) == dims_.end() &&
          (fixed_size(bdim(d)) != std::optional<int64_t>(1) ||
           fixed_size(gdim(d)) != std::optional<int64_t>(1)))
        unused += unused.empty() ? (d == 1 ? "y" : "z") : (d == 1 ? " and y" : " and z");
    if (!unused.empty())
      v.reason += "; assumes blocks and grid of size 1 in " + unused +
                  " (dimensions the kernel does not use)";
    if (!k_.preconditions.empty()) {
      v.reason += "; assumes the kernel's preconditions: ";
      for (size_t i = 0; i < k_.preconditions.size(); ++i)
        v.reason +=
            (i ? ", " : "") + (i < k_.precondition_texts.size() ? k_.precondition_texts[i]
                                                                : k_.preconditions[i].to_string());
    }
  } else if (auto w = search()) {
    v.verdict = Verdict::Race;
    v.witness = w;
    v.reason = "two threads access " + w->array + "[" + std::to_string(w->address) + "]";
  } else {
    v.verdict = Verdict::Unknown;
    v.reason = first_open;
  }
  finish(v, t0);
  return v;
}

void Checker::check_value_facts(std::string& first_open) const {
  // The facts the model states about values (unknowns, parameters' types) describe
  // values that exist: if they contradict each other (a modelling error), every question
  // was vacuous, and race-free would be unfounded.
  // (One check of its own budget, also when the kernel's is spent: a verdict reached
  // within the budget is not lost to it.)
  if (first_open.empty() && !k_.unknown_facts.empty()) {
    std::vector<Formula> fs = launch_;
    fs.insert(fs.end(), k_.unknown_facts.begin(), k_.unknown_facts.end());
    fs.insert(fs.end(), k_.type_facts.begin(), k_.type_facts.end());
    Solver s(fs, opt_.prover.timeout_ms);
    if (s.check({}, {}, nullptr, opt_.prover.timeout_ms) == SatResult::Unsat)
      first_open = "the model's facts about the kernel's values contradict each other (an "
                   "internal error: no question can be trusted)";
  }
}

bool Checker::over_budget() const {
  return opt_.budget_ms > 0 &&
         Solver::thread_work() - work0_ > uint64_t{opt_.budget_ms} * Solver::kWorkPerMs;
}

void Checker::finish(KernelVerdict& v, std::chrono::steady_clock::time_point t0) const {
  v.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  v.work_ms = static_cast<double>(Solver::thread_work() - work0_) / Solver::kWorkPerMs;
  v.wall_guard = Solver::thread_wall_guards() - guards0_;
  // The one way an answer can depend on the machine's load: say it.
  if (v.wall_guard > 0)
    v.reason += "; " + std::to_string(v.wall_guard) +
                " solver check(s) stopped by the wall-clock guard, so this verdict may "
                "depend on the machine's load";
}

void Checker::check_assertions(KernelVerdict& v) const {
  for (const Assertion& a : k_.assertions) {
    std::string status = "not checked";
    if (a.cond && over_budget())
      status = "may fail";
    else if (a.cond) {
      std::vector<Formula> fs = launch_;
      for (const Formula& f : k_.unknown_facts)
        fs.push_back(f);
      fs.insert(fs.end(), a.guards.begin(), a.guards.end());
      for (const LoopCtx& l : a.loops)
        fs.insert(fs.end(), l.facts.begin(), l.facts.end());
      // Holds when no state the facts allow makes it false (also where the facts
      // exclude the assertion's path).
      Solver s(fs, opt_.prover.timeout_ms);
      status = s.check({Formula::negate(*a.cond)}, {}, nullptr, opt_.prover.timeout_ms) ==
                       SatResult::Unsat
                   ? "holds"
                   : "may fail";
    }
    v.assertions.emplace_back(a, status);
  }
}

std::vector<std::string> Checker::knobs() const {
  std::vector<std::string> out;
  for (int d : dims_) {
    out.push_back(bdim(d));
    out.push_back(gdim(d));
  }
  out.insert(out.end(), k_.scalar_params.begin(), k_.scalar_params.end());
  return out;
}

bool Checker::one_block() const {
  for (int d : dims_) {
    bool one = false;
    for (const Formula& f : given_)
      one = one || (f.kind == Formula::Kind::Cmp && f.rel == Rel::Eq &&
                    f.lhs == Poly::var(gdim(d)) && f.rhs == Poly(1));
    if (!one) return false;
  }
  return true;
}

} // namespace funmem::frontend::detail

namespace funmem::frontend {

const char* verdict_name(Verdict v) {
  switch (v) {
  case Verdict::RaceFree:
    return "race-free";
  case Verdict::Race:
    return "race";
  case Verdict::Unknown:
    return "unknown";
  case Verdict::Unsupported:
    return "unsupported";
  }
  return "unknown";
}

KernelVerdict check_kernel(const KernelSummary& k, const RaceOptions& opt) {
  try {
    const KernelSummary pruned = detail::Checker(k, opt).pruned_guards();
    return detail::Checker(pruned, opt).run();
  } catch (const SymbolicOverflow& e) {
    KernelVerdict v;
    v.kernel = k.name;
    v.pos = k.pos;
    v.verdict = Verdict::Unknown;
    v.reason = std::string("a question's arithmetic leaves 64 bits (") + e.what() + ")";
    return v;
  }
}

} // namespace funmem::frontend
