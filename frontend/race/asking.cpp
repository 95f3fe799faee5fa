// Asking the prover (checker.h): the passes over a pair (the plan of strategies), the
// accesses' formula question, the case splits, and the cache of equal questions.
#include "frontend/race/checker.h"

namespace funmem::frontend::detail {

ProveResult Checker::prove_cases(const SymLmad& l1, const SymLmad& l2,
                                 const std::vector<Formula>& facts, bool quick) {
  ProverOptions po = opt_.prover;
  po.max_nodes = std::min(po.max_nodes, 60);
  po.search_timeout_ms = std::min(po.search_timeout_ms, 500u);
  if (quick) {
    po.membership = false;
    po.witness_search = false;
    po.max_nodes = 30;
    po.timeout_ms = std::min(po.timeout_ms, 300u);
  }
  std::set<std::string> uniform;
  auto collect = [&](const SymLmad& l) {
    for (const auto& [c, st] : l.dims)
      for (const Poly* p : {&c, &st})
        for (const std::string& v : p->free_vars())
          if (v.find('\'') == std::string::npos && v.rfind("threadIdx_", 0) != 0 &&
              v.rfind("blockIdx_", 0) != 0 && v.find('%') == std::string::npos &&
              v.rfind("fm_any_", 0) != 0)
            uniform.insert(v);
  };
  collect(l1);
  collect(l2);
  // Quick: the plain question first (most are proved without a split). Full: the
  // split first, the plain question (for its witness or reason) when it fails.
  ProveResult plain;
  bool have_plain = false;
  if (quick) {
    plain = prove_disjoint(l1, l2, facts, po);
    have_plain = true;
    if (plain.answer != Answer::Unknown) return plain;
  }
  std::vector<std::string> names;
  {
    // A short budget: a name whose lower bound Z3 cannot see at once is not split.
    Solver s(facts, 50);
    for (const std::string& v : uniform)
      if (names.size() < 3 && s.proves(ge(Poly::var(v), 1))) names.push_back(v);
  }
  ProveResult whole;
  for (size_t mask = 0; mask < (size_t{1} << names.size()); ++mask) {
    std::map<std::string, Poly> one;
    std::vector<Formula> fs = facts;
    for (size_t i = 0; i < names.size(); ++i) {
      if (mask & (size_t{1} << i))
        one[names[i]] = Poly(1);
      else
        fs.push_back(ge(Poly::var(names[i]), 2));
    }
    std::vector<Formula> sub;
    for (const Formula& f : fs)
      sub.push_back(one.empty() ? f : f.substitute(one));
    ProveResult r = prove_disjoint(lmad_substitute(l1, one), lmad_substitute(l2, one), sub, po);

    if (mask == 0) whole = r;
    if (r.answer != Answer::Disjoint) {
      if (names.empty() || mask == 0)
        return have_plain || names.empty() ? (have_plain ? plain : r)
                                           : prove_disjoint(l1, l2, facts, po);

      r.reason = "case " +
                 [&] {
                   std::string c;
                   for (const auto& [n, v] : one)
                     c += (c.empty() ? "" : ", ") + n + " = 1";
                   return c;
                 }() +
                 ": " + r.reason;
      return r;
    }
  }
  if (!names.empty()) {
    std::string c;
    for (const std::string& n : names)
      c += (c.empty() ? "" : ", ") + n;
    whole.reason = "case split on " + c + " (each 1, or at least 2)";
  }
  return whole;
}

void Checker::pair(const Access& w, const Access& a, KernelVerdict& v, std::string& first_open) {
  // Quick attempts (SOSI only) in both modes; the full prover (Z3 on the whole
  // membership question, witness search) only for what neither proved.
  KernelVerdict wide, narrow_v, full, narrow_same;
  std::string open_wide, open_narrow, open_full, open_same;
  // The passes: quick over the whole ranges; quick with the other thread's guards; quick
  // with them through the shared block indices; then the full prover with the guards,
  // and without them. Each keeps what an earlier one proved.
  questions(w, a, Pass{.quick = true}, wide, open_wide);
  if (!open_wide.empty() && accesses_question(w, a, wide)) open_wide.clear();
  // The time of every attempt at a question (a kept answer costs nothing again).
  std::vector<double> spent(wide.questions.size(), 0.0);
  auto add_time = [&spent](const KernelVerdict& pass) {
    for (size_t i = 0; i < pass.questions.size() && i < spent.size(); ++i)
      spent[i] += pass.questions[i].ms;
  };
  add_time(wide);
  if (!open_wide.empty()) {
    questions(w, a, Pass{.quick = true, .narrow_threads = true, .proved = &wide}, narrow_v,
              open_narrow);
    add_time(narrow_v);
    if (!open_narrow.empty()) {
      // In the same block, the other thread's guards may also bound its range through
      // the shared block indices (`16*blockIdx.y + tx' < height`): tighter for some
      // kernels, looser than the block for others, so a separate attempt.
      questions(w, a,
                Pass{.quick = true,
                     .narrow_threads = true,
                     .same_block_guards = true,
                     .proved = &narrow_v},
                narrow_same, open_same);
      add_time(narrow_same);
      for (size_t i = 0; i < narrow_v.questions.size() && i < narrow_same.questions.size(); ++i)
        if (narrow_v.questions[i].result.answer != Answer::Disjoint &&
            narrow_same.questions[i].result.answer == Answer::Disjoint)
          narrow_v.questions[i] = narrow_same.questions[i];
      open_narrow.clear();
      for (const QuestionResult& q : narrow_v.questions)
        if (q.result.answer != Answer::Disjoint && open_narrow.empty()) open_narrow = q.what;
    }
  }
  // Before the full prover, once per kernel: a search of small launches (counted in
  // steps). A race it finds ends the kernel (run()) without the full prover's work.
  if (!open_wide.empty() && !open_narrow.empty() && !searched_) {
    searched_ = true;
    early_ = search();
  }
  KernelVerdict full_wide;
  std::string open_full_wide;
  if (!open_wide.empty() && !open_narrow.empty() && !early_) {
    questions(w, a, Pass{.narrow_threads = true, .proved = &narrow_v}, full, open_full);
    add_time(full);
    if (!open_full.empty()) {
      questions(w, a, Pass{.proved = &full}, full_wide, open_full_wide);
      add_time(full_wide);
    }
  }
  for (size_t i = 0; i < wide.questions.size(); ++i) {
    if (wide.questions[i].result.answer == Answer::Disjoint) continue;
    if (i < narrow_v.questions.size() && narrow_v.questions[i].result.answer == Answer::Disjoint)
      continue; // taken below
    if (i < full.questions.size() && full.questions[i].result.answer == Answer::Disjoint)
      wide.questions[i] = full.questions[i];
    else if (i < full_wide.questions.size())
      wide.questions[i] = full_wide.questions[i];
    else if (i < full.questions.size())
      wide.questions[i] = full.questions[i];
  }
  for (size_t i = 0; i < wide.questions.size(); ++i) {
    QuestionResult& q = wide.questions[i];
    if (q.result.answer != Answer::Disjoint && i < narrow_v.questions.size() &&
        narrow_v.questions[i].result.answer == Answer::Disjoint)
      q = narrow_v.questions[i];
    q.ms = spent[i];
    if (q.result.answer != Answer::Disjoint && first_open.empty()) first_open = open_question(q);
    v.questions.push_back(std::move(q));
  }
}

bool Checker::accesses_question(const Access& w, const Access& a, KernelVerdict& v) {
  auto t0 = std::chrono::steady_clock::now();
  for (bool same_block : concurrency(w, a)) {
    if (over_budget()) return false; // the kernel's budget is spent: not proved
    std::set<std::string> shared = shared_counters(w, a, same_block);
    std::map<std::string, Poly> ren = other_thread(a, shared);
    std::vector<Formula> fs = launch_;
    add_launch_limits(fs); // a model is then a launch CUDA can run (the witness search's seed)
    std::vector<Formula> differ;
    for (int d : dims_) {
      Poly t2 = Poly::var(primed(tid(d))), b2 = Poly::var(primed(bid(d)));
      fs.push_back(ge(t2, 0));
      fs.push_back(lt(t2, Poly::var(bdim(d))));
      fs.push_back(ge(b2, 0));
      fs.push_back(lt(b2, Poly::var(gdim(d))));
      if (same_block) {
        fs.push_back(eq(b2, Poly::var(bid(d))));
        differ.push_back(Formula::cmp(t2, Rel::Ne, Poly::var(tid(d))));
      } else {
        differ.push_back(Formula::cmp(b2, Rel::Ne, Poly::var(bid(d))));
      }
    }
    if (differ.empty()) return false;
    fs.push_back(Formula::disj(differ));
    // Lock-step warps: in one block, two threads of one warp race only as two writes
    // of one statement.
    if (same_block && opt_.warp_sync > 0 && !(&w == &a && w.write)) {
      Poly lin = 0, lin2 = 0, stride = 1;
      for (int d = 0; d < 3; ++d) {
        bool used = std::find(dims_.begin(), dims_.end(), d) != dims_.end();
        if (!used) continue;
        lin = lin + stride * Poly::var(tid(d));
        lin2 = lin2 + stride * Poly::var(primed(tid(d)));
        stride = stride * Poly::var(bdim(d));
      }
      Poly n(opt_.warp_sync);
      fs.push_back(Formula::cmp(Poly::div(lin, n), Rel::Ne, Poly::div(lin2, n)));
    }
    int iters = 0;
    auto add = [&](const Access& x, const std::map<std::string, Poly>& r, bool second) {
      for (const LoopCtx& lp : x.loops) {
        if (second && shared.count(lp.var)) continue; // the same iteration: added once
        for (const Formula& f : lp.facts)
          fs.push_back(f.substitute(r));
        if (lp.geometric || lp.step == Poly(1)) continue;
        Poly j = Poly::var("fm_iteration_" + std::to_string(iters++));
        fs.push_back(eq(Poly::var(lp.var).substitute(r),
                        lp.lower.substitute(r) + lp.step.substitute(r) * j));
        fs.push_back(ge(j, 0));
        fs.push_back(lt(j, lp.count.substitute(r)));
      }
      for (const Formula& g : x.guards)
        fs.push_back(g.substitute(r));
    };
    add(w, {}, false);
    add(a, ren, true);
    for (const Formula& f : k_.unknown_facts) {
      fs.push_back(f);
      fs.push_back(f.substitute(ren));
    }
    fs.push_back(eq(w.index, a.index.substitute(ren)));
    Solver s(fs, 300);
    // A model (the launch and the scalars) seeds the witness search.
    Env model;
    SatResult r = s.check({}, knobs(), &model, 300);
    if (r == SatResult::Sat && models_.size() < 8) models_.push_back(model);
    if (r != SatResult::Unsat) return false;
  }
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (QuestionResult& q : v.questions)
    if (q.result.answer != Answer::Disjoint) {
      q.result.answer = Answer::Disjoint;
      q.result.method = "z3";
      q.result.reason = "no two threads reach one unit: Z3 on the accesses' conditions";
      q.result.ms = ms;
      q.ms += ms;
    }
  return true;
}

} // namespace funmem::frontend::detail
