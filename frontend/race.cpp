// Race freedom of extracted kernels (see race.h).
#include "frontend/race.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace funmem::frontend {

namespace {

const char* const kDims[] = {"x", "y", "z"};

std::string tid(int d) {
  return std::string("threadIdx_") + kDims[d];
}
std::string bid(int d) {
  return std::string("blockIdx_") + kDims[d];
}
std::string bdim(int d) {
  return std::string("blockDim_") + kDims[d];
}
std::string gdim(int d) {
  return std::string("gridDim_") + kDims[d];
}
std::string primed(const std::string& n) {
  return n + "'";
}

bool mentions(const Poly& p, const std::string& n) {
  for (const std::string& v : p.free_vars())
    if (v == n) return true;
  return false;
}
/// threadIdx_* / blockIdx_*, of this thread or (primed) of the other.
bool is_builtin_index(const std::string& v) {
  return v.rfind("threadIdx_", 0) == 0 || v.rfind("blockIdx_", 0) == 0;
}
bool mentions_builtin_index(const Poly& p) {
  for (const std::string& v : p.free_vars())
    if (is_builtin_index(v)) return true;
  return false;
}

bool mentions_any(const std::vector<std::string>& vars, const std::set<std::string>& names) {
  for (const std::string& v : vars)
    if (names.count(v)) return true;
  return false;
}

/// Which built-in dimensions the kernel (or the facts) uses: x always.
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

struct Range {
  Poly lower, span;
};

/// Bounds on `var` that the guards give, solved from comparisons linear in `var` with
/// coefficient +1 or -1: (inclusive lower, exclusive upper). Expressions that mention a
/// name in `gone` (expanded already) are not used.
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

/// The other thread's names in the guards (primed): expanded, so no bound may use them.
std::set<std::string> other_names(const std::vector<Formula>& guards) {
  std::set<std::string> out;
  for (const Formula& g : guards)
    for (const std::string& v : g.free_vars())
      if (!v.empty() && v.back() == '\'') out.insert(v);
  return out;
}

/// The range a thread variable of the other thread takes, narrowed by its guards: a
/// superset of the threads that run the access.
Range narrow(const std::string& var, Range r, const std::vector<Formula>& guards) {
  auto [lo, hi] = guard_bounds(var, guards, other_names(guards));
  Poly l = lo ? *lo : r.lower, h = hi ? *hi : r.lower + r.span;
  return Range{l, h - l};
}

class Checker {
public:
  Checker(const KernelSummary& k, const RaceOptions& o) : k_(k), opt_(o) {
    given_ = o.facts;
    given_.insert(given_.end(), k.preconditions.begin(), k.preconditions.end());
    dims_ = dims_used(k, given_);
    for (int d = 0; d < 3; ++d) {
      bool used = std::find(dims_.begin(), dims_.end(), d) != dims_.end();
      if (used) {
        launch_.push_back(ge(Poly::var(bdim(d)), 1));
        launch_.push_back(ge(Poly::var(gdim(d)), 1));
        launch_.push_back(ge(Poly::var(tid(d)), 0));
        launch_.push_back(lt(Poly::var(tid(d)), Poly::var(bdim(d))));
        launch_.push_back(ge(Poly::var(bid(d)), 0));
        launch_.push_back(lt(Poly::var(bid(d)), Poly::var(gdim(d))));
      }
    }
    launch_.insert(launch_.end(), given_.begin(), given_.end());
  }

  KernelVerdict run() {
    auto t0 = start_ = std::chrono::steady_clock::now();
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
    check_assertions(v);
    std::string first_open;
    bool spent = false;
    for (size_t w = 0; w < k_.accesses.size() && !spent; ++w) {
      const Access& aw = k_.accesses[w];
      if (!aw.write) continue;
      for (size_t a = 0; a < k_.accesses.size(); ++a) {
        const Access& aa = k_.accesses[a];
        if (aa.array != aw.array) continue;
        if (aw.atomic && aa.atomic) continue; // atomics on one cell do not race
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
                         " ms was spent before every question was asked";
          break;
        }
        pair(aw, aa, v, first_open);
        // A race the prover's model points at, confirmed on a small launch: done.
        if (!first_open.empty() && !models_.empty()) {
          if (auto wit = search()) {
            v.verdict = Verdict::Race;
            v.witness = wit;
            v.reason =
                "two threads access " + wit->array + "[" + std::to_string(wit->address) + "]";
            finish(v, t0);
            return v;
          }
          models_.clear();
        }
      }
    }
    for (const Problem& p : k_.unknown)
      if (first_open.empty())
        first_open = std::to_string(p.pos.line) + ":" + std::to_string(p.pos.col) + ": " + p.what;
    if (first_open.empty()) {
      v.verdict = Verdict::RaceFree;
      v.reason = std::to_string(v.questions.size()) + " question(s), every one disjoint";
      // The assumption the verdict rests on (GPUVerify's too), said where it matters.
      size_t objects = k_.pointer_params.size() + k_.global_vars.size();
      if (objects >= 2) v.reason += "; assumes distinct pointer parameters do not alias";
      if (k_.indirect_calls)
        v.reason += "; assumes a call through a function pointer reaches a function of this "
                    "file whose address it takes";
      if (benign_) v.reason += "; assumes two writes of one value do not race";
      if (opt_.warp_sync > 0)
        v.reason += "; assumes warps of " + std::to_string(opt_.warp_sync) + " run in lock-step";
      if (opt_.only_intra_group) v.reason += "; threads of different blocks not checked";
      if (!k_.preconditions.empty()) {
        v.reason += "; assumes the kernel's preconditions: ";
        for (size_t i = 0; i < k_.preconditions.size(); ++i)
          v.reason += (i ? ", " : "") + k_.preconditions[i].to_string();
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

private:
  const KernelSummary& k_;
  const RaceOptions& opt_;
  std::vector<Formula> given_; // the launch facts and the kernel's preconditions
  std::vector<int> dims_;
  std::vector<Formula> launch_;
  bool narrow_threads_ = false;
  bool same_block_guards_ = false;        // same block: t' guards' block indices are t's
  const KernelVerdict* proved_ = nullptr; // an earlier pass over the pair's questions
  bool quick_ = false;
  std::vector<Env> models_;                  // assignments of the overlaps the prover found
  std::map<std::string, ProveResult> cache_; // equal questions (a += reads and writes)

  std::chrono::steady_clock::time_point start_;
  bool over_budget() const {
    return opt_.budget_ms > 0 &&
           std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
                   .count() > opt_.budget_ms;
  }

  void check_assertions(KernelVerdict& v) const {
    for (const Assertion& a : k_.assertions) {
      std::string status = "not checked";
      if (a.cond) {
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

  /// The names a launch chooses: the used dimensions' sizes and the scalar parameters.
  std::vector<std::string> knobs() const {
    std::vector<std::string> out;
    for (int d : dims_) {
      out.push_back(bdim(d));
      out.push_back(gdim(d));
    }
    out.insert(out.end(), k_.scalar_params.begin(), k_.scalar_params.end());
    return out;
  }

  bool benign_ = false; // a pair of writes of one value was not asked
  int64_t linear(const std::vector<int64_t>& t) const {
    return t[0] + t[1] * bsize_[0] + t[2] * bsize_[0] * bsize_[1];
  }
  std::vector<int64_t> bsize_ = {1, 1, 1}; // the block size of the launch searched
  /// Two writes of one value, with equal_writes on.
  bool benign(const Access& x, const Access& y) const {
    // A value read from (or the address of) shared memory is one block's: alike in
    // every block only when the launch has one block, or when the object written is
    // shared too (only threads of one block write the same one).
    return opt_.equal_writes && x.write && y.write && !x.atomic && !y.atomic && x.value &&
           y.value && *x.value == *y.value &&
           (x.value->find(" shared ") == std::string::npos || x.space == Space::Shared ||
            one_block());
  }
  /// With equal_writes on, a read `r` of what its thread itself stored before it in the
  /// same barrier interval, unconditionally and at the same place, where every write of
  /// the object in that interval stores the value `w` stores: whichever write it sees,
  /// it reads that value, so the write `w` of another thread does not change it.
  bool reads_own_value(const Access& w, const Access& r) const {
    if (!opt_.equal_writes || r.write || r.atomic || !r.exact_guards || !benign(w, w)) return false;
    auto same_interval = [&](const Access& x) {
      return x.array == r.array && x.phase == r.phase && x.grid_phase == r.grid_phase;
    };
    for (const Access& x : k_.accesses)
      if (x.write && same_interval(x) && !benign(w, x)) return false;
    for (const Access& o : k_.accesses) {
      if (&o == &r) return false; // only stores before the read
      if (o.write && same_interval(o) && o.index == r.index && o.unit == r.unit &&
          o.guards.empty() && o.exact_guards && o.loops.empty() && r.loops.empty())
        return true;
    }
    return false;
  }
  /// Under equal_writes: a pair that cannot see different values (either of the above).
  bool equal_values(const Access& w, const Access& a) const {
    return benign(w, a) || reads_own_value(w, a);
  }
  bool one_block() const {
    for (int d : dims_) {
      bool one = false;
      for (const Formula& f : given_)
        one = one || (f.kind == Formula::Kind::Cmp && f.rel == Rel::Eq &&
                      f.lhs == Poly::var(gdim(d)) && f.rhs == Poly(1));
      if (!one) return false;
    }
    return true;
  }

  static void finish(KernelVerdict& v, std::chrono::steady_clock::time_point t0) {
    v.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  /// The loops of `a` whose counters both threads share in a same-block question: those
  /// with a barrier in their body (both threads are in the same iteration).
  static std::set<std::string> shared_counters(const Access& a, bool same_block) {
    std::set<std::string> s;
    if (same_block)
      for (const LoopCtx& l : a.loops)
        if (l.barrier) s.insert(l.var);
    return s;
  }

  /// When `w` and `a` may run concurrently: in one block (true) if they are in the same
  /// barrier interval (and the same iteration of loops with barriers); in different
  /// blocks (false) if global, between the same grid barriers.
  /// Under only_intra_group, threads of different blocks are not asked.
  std::vector<bool> concurrency(const Access& w, const Access& a) const {
    std::vector<bool> blocks;
    if (w.phase == a.phase) blocks.push_back(true);
    if (w.space == Space::Global && w.grid_phase == a.grid_phase && !opt_.only_intra_group)
      blocks.push_back(false);
    return blocks;
  }
  static std::set<std::string> shared_counters(const Access& w, const Access& a, bool same_block) {
    std::set<std::string> shared = shared_counters(w, same_block);
    for (const std::string& x : shared_counters(a, same_block))
      shared.insert(x);
    return shared;
  }
  /// The other thread's names for `a`: primed built-in indices, loop counters (those not
  /// `shared`) and unknowns (values the extractor does not follow are each thread's own).
  std::map<std::string, Poly> other_thread(const Access& a,
                                           const std::set<std::string>& shared) const {
    std::map<std::string, Poly> ren;
    for (int d : dims_) {
      ren[tid(d)] = Poly::var(primed(tid(d)));
      ren[bid(d)] = Poly::var(primed(bid(d)));
    }
    for (const LoopCtx& lp : a.loops)
      if (!shared.count(lp.var)) ren[lp.var] = Poly::var(primed(lp.var));
    for (const std::string& u : k_.unknowns)
      ren[u] = Poly::var(primed(u));
    return ren;
  }

  /// The set of elements one thread touches with `a` (its loops expanded, shared
  /// counters kept), with names renamed by `ren`; the names expanded are added to
  /// `expanded`.
  std::optional<SymLmad> set_of(const Access& a, const std::map<std::string, Poly>& ren,
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
      // sets of all threads are one LMAD. Only when the start grows with the indices:
      // every term that mentions one has a positive coefficient and only built-ins.
      if (mentions_builtin_index(count) && !mentions_builtin_index(step)) {
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
      Poly at = lower + step * Poly::var(j);
      l = lmad_substitute(l, {{c, at}});
      auto e = lmad_expand(j, 0, count, l);
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

  /// The range of t's own thread variable `var` narrowed by t's guards (names expanded
  /// already are not used).
  static Range narrow_own(const std::string& var, Range r, const std::vector<Formula>& guards,
                          const std::set<std::string>& gone) {
    auto [lo, hi] = guard_bounds(var, guards, gone);
    Poly l = lo ? *lo : r.lower, h = hi ? *hi : r.lower + r.span;
    return Range{l, h - l};
  }

  /// The prover, then case splits on the uniform names of the strides and counts that
  /// are at least 1: every name >= 2, and each subset of them equal to 1 (substituted).
  /// Blocked layouts are separated by one interval pair when the sizes are >= 2; the
  /// size-1 cases are simpler sets.
  ProveResult prove_cases(const SymLmad& l1, const SymLmad& l2, const std::vector<Formula>& facts) {
    ProverOptions po = opt_.prover;
    po.max_nodes = std::min(po.max_nodes, 60);
    po.search_timeout_ms = std::min(po.search_timeout_ms, 500u);
    if (quick_) {
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
    if (quick_) {
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

  /// Expands the other thread's set over `var` in `r`.
  static std::optional<SymLmad> over(const SymLmad& l, const std::string& var, const Range& r) {
    return lmad_expand(var, r.lower, r.span, l);
  }

  /// A diagonal dimension (c : s1 + k) of `l`, with s1 a stride of either set and k a
  /// positive constant, boxed into (c : s1), (c : k) (a superset: the diagonal of its
  /// square), so that its strides match the other set's rows and columns; nullopt when
  /// there is none.
  static std::optional<SymLmad> box_diagonals(const SymLmad& l, const SymLmad& other) {
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

  /// Linear comparisons scaled by the (positive) block sizes: `it + 1 + blockIdx.x < nb`
  /// gives `b*it + b + b*blockIdx.x < b*nb` for b = blockDim.x, the non-linear fact a
  /// blocked layout's column bound needs and the side conditions do not find alone.
  void add_products(std::vector<Formula>& facts) const {
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

  /// A launch size fixed by the facts (`blockDim.x == 16`), if any.
  std::optional<int64_t> fixed_size(const std::string& name) const {
    for (const Formula& f : given_)
      if (f.kind == Formula::Kind::Cmp && f.rel == Rel::Eq) {
        if (f.lhs == Poly::var(name) && f.rhs.constant()) return f.rhs.constant();
        if (f.rhs == Poly::var(name) && f.lhs.constant()) return f.lhs.constant();
      }
    return std::nullopt;
  }

  /// Another block's thread t' often uses a block index and a thread index only as
  /// `K * blockIdx' + threadIdx'` with K its (fixed) block size (a global index, possibly across
  /// dimensions, as a transpose does). That pair of ranges is exactly one range of the
  /// global index g' = [K * lower, K * (lower + count)), on which guards such as
  /// `g' < height` can act -- the product of the two ranges cannot express them. The
  /// LMAD and guards are rewritten with threadIdx' = g' - K * blockIdx' where that
  /// removes the block index; `merged` gets both names, `ids` each g' with its range
  /// and whether it comes from the split dimension.
  void merge_global_ids(SymLmad& l, std::vector<Formula>& guards, size_t di, bool below,
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

  /// Every question for the pair (a write of t, an access of t').
  /// The questions of a pair, first with the built-ins over their whole ranges, then,
  /// for those not proved, with the ranges the accesses' guards give (either is a
  /// superset of the threads that access; which one is tighter depends on the sizes).
  void pair(const Access& w, const Access& a, KernelVerdict& v, std::string& first_open) {
    // Quick attempts (SOSI only) in both modes; the full prover (Z3 on the whole
    // membership question, witness search) only for what neither proved.
    KernelVerdict wide, narrow_v, full, narrow_same;
    std::string open_wide, open_narrow, open_full, open_same;
    quick_ = true;
    narrow_threads_ = false;
    questions(w, a, wide, open_wide);
    if (!open_wide.empty() && accesses_question(w, a, wide)) open_wide.clear();
    // The time of every attempt at a question (a kept answer costs nothing again).
    std::vector<double> spent(wide.questions.size(), 0.0);
    auto add_time = [&spent](const KernelVerdict& pass) {
      for (size_t i = 0; i < pass.questions.size() && i < spent.size(); ++i)
        spent[i] += pass.questions[i].ms;
    };
    add_time(wide);
    if (!open_wide.empty()) {
      narrow_threads_ = true;
      proved_ = &wide;
      questions(w, a, narrow_v, open_narrow);
      add_time(narrow_v);
      proved_ = nullptr;
      if (!open_narrow.empty()) {
        // In the same block, the other thread's guards may also bound its range through
        // the shared block indices (`16*blockIdx.y + tx' < height`): tighter for some
        // kernels, looser than the block for others, so a separate attempt.
        same_block_guards_ = true;
        proved_ = &narrow_v;
        questions(w, a, narrow_same, open_same);
        add_time(narrow_same);
        proved_ = nullptr;
        same_block_guards_ = false;
        for (size_t i = 0; i < narrow_v.questions.size() && i < narrow_same.questions.size(); ++i)
          if (narrow_v.questions[i].result.answer != Answer::Disjoint &&
              narrow_same.questions[i].result.answer == Answer::Disjoint)
            narrow_v.questions[i] = narrow_same.questions[i];
        open_narrow.clear();
        for (const QuestionResult& q : narrow_v.questions)
          if (q.result.answer != Answer::Disjoint && open_narrow.empty()) open_narrow = q.what;
      }
    }
    quick_ = false;
    KernelVerdict full_wide;
    std::string open_full_wide;
    if (!open_wide.empty() && !open_narrow.empty()) {
      narrow_threads_ = true;
      proved_ = &narrow_v;
      questions(w, a, full, open_full);
      add_time(full);
      if (!open_full.empty()) {
        narrow_threads_ = false;
        proved_ = &full;
        questions(w, a, full_wide, open_full_wide);
        add_time(full_wide);
      }
      proved_ = nullptr;
    }
    narrow_threads_ = false;
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
      if (q.result.answer != Answer::Disjoint && first_open.empty())
        first_open = q.what + ": " + answer_name(q.result.answer) +
                     (q.result.reason.empty() ? "" : " (" + q.result.reason + ")");
      v.questions.push_back(std::move(q));
    }
  }

  /// The pair's question as one formula over the two accesses (no sets): is there a
  /// thread t running `w` and another thread t' running `a` concurrently, at the same
  /// unit? Loops become iteration variables (k = lower + step * j, 0 <= j < count, and
  /// the loop's facts), guards are conditions, unknowns are free, t' has its own names.
  /// With the launch sizes known the formula is linear (div and mod by constants) and
  /// Z3 decides it; unsat proves every question of the pair (`v`'s are marked so).
  bool accesses_question(const Access& w, const Access& a, KernelVerdict& v) {
    auto t0 = std::chrono::steady_clock::now();
    for (bool same_block : concurrency(w, a)) {
      std::set<std::string> shared = shared_counters(w, a, same_block);
      std::map<std::string, Poly> ren = other_thread(a, shared);
      std::vector<Formula> fs = launch_;
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

  void questions(const Access& w, const Access& a, KernelVerdict& v, std::string& first_open) {
    for (bool same_block : concurrency(w, a)) {
      std::set<std::string> shared = shared_counters(w, a, same_block);
      // Thread t: its own names. Thread t': primed names (shared counters stay).
      std::set<std::string> exp1;
      std::string why;
      auto l1 = set_of(w, {}, shared, exp1, &why);
      std::map<std::string, Poly> ren = other_thread(a, shared);
      std::set<std::string> exp2;
      std::optional<SymLmad> l2;
      if (l1) l2 = set_of(a, ren, shared, exp2, &why);
      // Facts: the launch, t's guards on names that are not expanded, shared counters.
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
      // The other thread's guards on its own thread variables narrow its ranges.
      std::vector<Formula> guards2;
      if (narrow_threads_) {
        // In the same block t' has t's block indices: its guards may use them.
        std::map<std::string, Poly> same;
        if (same_block && same_block_guards_)
          for (int d : dims_)
            same[primed(bid(d))] = Poly::var(bid(d));
        for (const Formula& g : a.guards)
          guards2.push_back(same.empty() ? g.substitute(ren) : g.substitute(ren).substitute(same));
      }
      // A question, and the thread dimensions of t's block to keep at the block's size
      // (against the blocks above, those merged with the split block index: the split
      // separates them, a guard's bound could reach into the next block).
      std::vector<std::tuple<std::string, std::optional<SymLmad>, std::set<int>>> qs;
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
      for (auto& [what, l, keep] : qs) {
        // Proved in an earlier pass over the same pair: the same question, kept.
        if (const size_t idx = v.questions.size();
            proved_ && idx < proved_->questions.size() &&
            proved_->questions[idx].result.answer == Answer::Disjoint) {
          v.questions.push_back(proved_->questions[idx]);
          v.questions.back().ms = 0;
          continue;
        }
        const auto q0 = std::chrono::steady_clock::now();
        QuestionResult q;
        q.what = std::string(w.write ? "write " : "read ") + w.array + "[" +
                 display_names(w.index.to_string()) + "] at " + std::to_string(w.pos.line) + ":" +
                 std::to_string(w.pos.col) + " vs " + (a.write ? "write " : "read ") + a.array +
                 "[" + display_names(a.index.to_string()) + "] at " + std::to_string(a.pos.line) +
                 ":" + std::to_string(a.pos.col) + ", other thread in " + what;
        // Another block: the whole of t's block (a superset of t's accesses) against the
        // other blocks, the form in which the SOSI steps separate blocked layouts.
        std::optional<SymLmad> mine = l1;
        std::vector<Formula> fs = facts;
        if (!same_block && mine) {
          std::vector<Formula> own;
          if (narrow_threads_)
            for (const Formula& g : w.guards)
              own.push_back(g);
          for (size_t e = dims_.size(); e-- > 0 && mine;) {
            int d = dims_[e];
            Range block{0, Poly::var(bdim(d))};
            mine =
                over(*mine, tid(d), keep.count(d) ? block : narrow_own(tid(d), block, own, exp1));
          }
          fs.clear();
          for (const Formula& f : facts)
            if (!mentions_any(f.free_vars(), {tid(0), tid(1), tid(2)})) fs.push_back(f);
        }
        if (!mine || !l) {
          q.result.answer = Answer::Unknown;
          q.result.reason = why.empty() ? "the other threads' accesses are not one LMAD" : why;
        } else if (over_budget()) {
          q.result.answer = Answer::Unknown;
          q.result.reason = "the kernel's budget of " + std::to_string(opt_.budget_ms) +
                            " ms was spent before this question";
        } else {
          q.l1 = mine->to_string();
          q.l2 = l->to_string();
          std::string key = std::string(quick_ ? "quick ; " : "full ; ") + q.l1 + " ; " + q.l2;
          for (const Formula& f : fs)
            key += " ; " + f.to_string();
          if (auto it = cache_.find(key); it != cache_.end()) {
            q.result = it->second;
          } else {
            q.result = prove_cases(*mine, *l, fs);
            if (q.result.answer == Answer::Unknown)
              if (auto boxed = box_diagonals(*l, *mine)) {
                // A superset of the other threads' set that SOSI can align, and the
                // guards scaled by the block sizes for the non-linear bounds it needs.
                std::vector<Formula> more = fs;
                add_products(more);
                ProveResult r = prove_cases(*mine, *boxed, more);
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
        if (q.result.answer != Answer::Disjoint && first_open.empty())
          first_open = q.what + ": " + answer_name(q.result.answer) +
                       (q.result.reason.empty() ? "" : " (" + q.result.reason + ")");
        q.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - q0)
                   .count();
        v.questions.push_back(std::move(q));
      }
    }
  }

  // ------------------------------------------------------------ witness search

  struct Event {
    int access;
    int64_t address;
    std::vector<int64_t> block, thread;
    std::vector<int64_t> shared_key; // values of counters of loops with barriers
  };

  /// Enumerates thread pairs on small launches for two conflicting accesses.
  std::optional<RaceWitness> search() {
    // Names to choose: launch sizes and scalar parameters.
    const std::vector<std::string> knobs = this->knobs();
    std::vector<Env> candidates;
    // The prover's models first (overlaps it found), then small uniform values, then
    // mixed ones: sizes 2-4, every scalar parameter from {0, 1, 2, 4, 8} independently;
    // the large uniform launches last, as one of them can use up the budget. (Without
    // the prover's model, which Z3 on a loaded machine may not give in time, only a
    // mixed launch shows corpus/cuda/lud-internal-race.cu's race.)
    for (const Env& m : models_) {
      Env e;
      for (const std::string& n : knobs)
        e[n] = m.count(n) ? m.at(n) : 2;
      candidates.push_back(e);
    }
    auto uniform = [&](std::initializer_list<int64_t> values) {
      for (int64_t v : values) {
        Env e;
        for (const std::string& n : knobs)
          e[n] = v;
        candidates.push_back(e);
      }
    };
    uniform({1, 2, 3, 4, 5});
    const std::vector<int64_t> pv = {0, 1, 2, 4, 8};
    size_t combos = 1;
    for (size_t i = 0; i < k_.scalar_params.size() && combos < 4096; ++i)
      combos *= pv.size();
    for (int64_t bd : {2, 4})
      for (int64_t gd : {1, 2, 3})
        for (size_t c = 0; c < combos && candidates.size() < 600; ++c) {
          Env e;
          size_t x = c;
          for (const std::string& p : k_.scalar_params) {
            e[p] = pv[x % pv.size()];
            x /= pv.size();
          }
          for (int d : dims_) {
            e[bdim(d)] = bd;
            e[gdim(d)] = gd;
          }
          candidates.push_back(e);
        }
    uniform({8, 16});
    int budget = opt_.search_limit;
    for (Env env : candidates) {
      // Unused dimensions have size 1 (the facts may say so).
      for (int d = 0; d < 3; ++d)
        if (std::find(dims_.begin(), dims_.end(), d) == dims_.end()) {
          env[bdim(d)] = 1;
          env[gdim(d)] = 1;
        }
      settle_equalities(env, knobs);
      bool ok = true;
      for (const Formula& f : given_) {
        auto t = f.eval(env);
        if (!t || !*t) ok = false;
      }
      if (!ok) continue;
      if (auto w = search_launch(env, budget)) return w;
      if (budget <= 0) break;
    }
    return std::nullopt;
  }

  /// Launch facts `knob == e` (`blockDim.x == n`) decide the knob from the others'
  /// values, so that candidates meet them.
  void settle_equalities(Env& env, const std::vector<std::string>& knobs) const {
    std::vector<const Formula*> eqs;
    std::function<void(const Formula&)> collect = [&](const Formula& f) {
      if (f.kind == Formula::Kind::Cmp && f.rel == Rel::Eq) eqs.push_back(&f);
      if (f.kind == Formula::Kind::And)
        for (const Formula& k : f.kids)
          collect(k);
    };
    for (const Formula& f : given_)
      collect(f);
    for (size_t round = 0; round < knobs.size(); ++round) {
      bool changed = false;
      for (const Formula* f : eqs)
        for (int side = 0; side < 2; ++side) {
          const Poly& a = side ? f->rhs : f->lhs;
          const Poly& b = side ? f->lhs : f->rhs;
          auto vars = a.free_vars();
          if (vars.size() != 1 || !(a == Poly::var(vars[0])) ||
              std::find(knobs.begin(), knobs.end(), vars[0]) == knobs.end())
            continue;
          auto value = b.eval(env);
          if (value && *value >= 0 && env[vars[0]] != *value) {
            env[vars[0]] = *value;
            changed = true;
          }
        }
      if (!changed) break;
    }
  }

  std::optional<RaceWitness> search_launch(const Env& launch, int& budget) {
    std::vector<Event> events;
    std::vector<int64_t> bsize, gsize;
    for (int d = 0; d < 3; ++d) {
      bool used = std::find(dims_.begin(), dims_.end(), d) != dims_.end();
      bsize.push_back(used ? launch.at(bdim(d)) : 1);
      gsize.push_back(used ? launch.at(gdim(d)) : 1);
    }
    const int64_t threads = bsize[0] * bsize[1] * bsize[2], blocks = gsize[0] * gsize[1] * gsize[2];
    bsize_ = bsize;
    // When the budget runs out, the accesses enumerated so far are still searched (a
    // conflict among them is a race at this launch).
    bool spent = false;
    for (int64_t b = 0; b < blocks && !spent; ++b)
      for (int64_t t = 0; t < threads && !spent; ++t) {
        Env env = launch;
        std::vector<int64_t> bi = {b % gsize[0], (b / gsize[0]) % gsize[1],
                                   b / (gsize[0] * gsize[1])};
        std::vector<int64_t> ti = {t % bsize[0], (t / bsize[0]) % bsize[1],
                                   t / (bsize[0] * bsize[1])};
        for (int d = 0; d < 3; ++d) {
          env[tid(d)] = ti[static_cast<size_t>(d)];
          env[bid(d)] = bi[static_cast<size_t>(d)];
          env[bdim(d)] = bsize[static_cast<size_t>(d)];
          env[gdim(d)] = gsize[static_cast<size_t>(d)];
        }
        for (size_t a = 0; a < k_.accesses.size(); ++a) {
          if (!k_.accesses[a].exact_guards) continue; // may not happen: no confirmation
          walk(static_cast<int>(a), 0, env, bi, ti, {}, events, budget);
          if (budget <= 0) {
            spent = true;
            break;
          }
        }
      }
    // Conflicts: same array and address, one a write, different threads, concurrent.
    std::unordered_map<std::string, std::vector<size_t>> by_place;
    for (size_t e = 0; e < events.size(); ++e)
      by_place[k_.accesses[static_cast<size_t>(events[e].access)].array + "#" +
               std::to_string(events[e].address)]
          .push_back(e);
    for (const auto& [place, es] : by_place)
      for (size_t x : es)
        for (size_t y : es) {
          const Event &ex = events[x], &ey = events[y];
          const Access &ax = k_.accesses[static_cast<size_t>(ex.access)],
                       &ay = k_.accesses[static_cast<size_t>(ey.access)];
          if (!ax.write) continue;
          if (ax.atomic && ay.atomic) continue;
          if (equal_values(ax, ay)) continue;
          if (ex.block == ey.block && ex.thread == ey.thread) continue;
          bool same_block = ex.block == ey.block;
          if (same_block && (ax.phase != ay.phase || ex.shared_key != ey.shared_key)) continue;
          // Lock-step warps: a pair in one warp is not reported (only a same-iteration
          // pair of one statement's writes could race there).
          if (same_block && opt_.warp_sync > 0 &&
              linear(ex.thread) / opt_.warp_sync == linear(ey.thread) / opt_.warp_sync)
            continue;
          if (!same_block && (ax.space == Space::Shared || opt_.only_intra_group)) continue;
          if (!same_block && ax.grid_phase != ay.grid_phase) continue;
          RaceWitness w;
          w.array = ax.array;
          w.address = ex.address;
          w.unit = ax.unit;
          w.launch = launch;
          w.first = describe(ex, ax);
          w.second = describe(ey, ay);
          return w;
        }
    return std::nullopt;
  }

  static std::string triple(const std::vector<int64_t>& v) {
    return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) +
           ")";
  }
  static std::string describe(const Event& e, const Access& a) {
    return "block " + triple(e.block) + " thread " + triple(e.thread) + " " +
           (a.write ? "writes " : "reads ") + a.array + "[" + std::to_string(e.address) + "] (" +
           a.text + " at " + std::to_string(a.pos.line) + ":" + std::to_string(a.pos.col) + ")";
  }

  /// The concrete iterations of access `a`'s loops from level `depth` on.
  void walk(int a, size_t depth, Env& env, const std::vector<int64_t>& bi,
            const std::vector<int64_t>& ti, std::vector<int64_t> key, std::vector<Event>& out,
            int& budget) {
    const Access& acc = k_.accesses[static_cast<size_t>(a)];
    if (--budget <= 0) return;
    if (depth == acc.loops.size()) {
      for (const Formula& g : acc.guards) {
        auto t = g.eval(env);
        if (!t || !*t) return;
      }
      auto addr = acc.index.eval(env);
      if (!addr) return;
      out.push_back(Event{a, *addr, bi, ti, key});
      return;
    }
    const LoopCtx& l = acc.loops[depth];
    auto lower = l.lower.eval(env), count = l.count.eval(env);
    if (!lower || !count) return;
    if (l.doubling) {
      for (int64_t k = *lower; l.inclusive ? k <= *count : k < *count; k *= 2) {
        env[l.var] = k;
        std::vector<int64_t> kk = key;
        if (l.barrier) kk.push_back(k);
        walk(a, depth + 1, env, bi, ti, kk, out, budget);
        if (k <= 0 || k > (int64_t{1} << 40) || budget <= 0) break;
      }
      return;
    }
    if (l.geometric) {
      for (int64_t k = *lower; l.inclusive ? k >= *count : k > *count; k /= 2) {
        env[l.var] = k;
        std::vector<int64_t> kk = key;
        if (l.barrier) kk.push_back(k);
        walk(a, depth + 1, env, bi, ti, kk, out, budget);
        if (k == 0 || budget <= 0) break;
      }
      return;
    }
    auto step = l.step.eval(env);
    if (!step) return;
    for (int64_t j = 0; j < *count && j < 4096 && budget > 0; ++j) {
      env[l.var] = *lower + *step * j;
      std::vector<int64_t> kk = key;
      if (l.barrier) kk.push_back(env[l.var]);
      walk(a, depth + 1, env, bi, ti, kk, out, budget);
    }
  }
};

} // namespace

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
  return Checker(k, opt).run();
}

std::optional<Formula> parse_launch_fact(const std::string& text, Diagnostic* error) {
  std::string t = text;
  for (const char* b : {"threadIdx", "blockIdx", "blockDim", "gridDim"})
    for (const char* d : {".x", ".y", ".z"}) {
      std::string from = std::string(b) + d, to = std::string(b) + "_" + (d + 1);
      for (size_t at = 0; (at = t.find(from, at)) != std::string::npos; at += to.size())
        t.replace(at, from.size(), to);
    }
  return parse_fact(t, error);
}

GpuVerifyHeader read_gpuverify_header(const std::string& code) {
  GpuVerifyHeader h;
  std::istringstream in(code);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("//", 0) != 0) break; // the header is the leading comment lines
    std::string body = line.substr(2);
    if (body.rfind("pass", 0) == 0) h.expect = "race-free";
    if (body.rfind("xfail", 0) == 0) h.expect = "race";
    if (body.find("--equality-abstraction") != std::string::npos) h.equal_writes = true;
    if (body.find("--only-intra-group") != std::string::npos) h.only_intra_group = true;
    if (size_t at = body.find("--warp-sync="); at != std::string::npos) {
      std::string n = body.substr(at + 12);
      n = n.substr(0, n.find_first_not_of("0123456789"));
      if (!n.empty() && n.size() < 6) h.warp_sync = std::stoi(n);
    }
    std::istringstream w(body);
    for (std::string word; w >> word;) {
      for (const char* what : {"--blockDim=", "--gridDim="}) {
        if (word.rfind(what, 0) != 0) continue;
        std::string v = word.substr(std::string(what).size());
        // [a,b,c] or a single number.
        if (!v.empty() && v.front() == '[') v = v.substr(1, v.size() - 2);
        std::istringstream vs(v);
        std::string item;
        int d = 0;
        while (std::getline(vs, item, ',') && d < 3) {
          bool digits = !item.empty() && std::all_of(item.begin(), item.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
          });
          if (digits) {
            std::string name =
                std::string(std::string(what) == "--blockDim=" ? "blockDim_" : "gridDim_") +
                kDims[d];
            h.facts.push_back(eq(Poly::var(name), std::stoll(item)));
            h.fact_texts.push_back(display_names(name) + " == " + item);
          }
          ++d;
        }
        // The dimensions not given are 1 (`--blockDim=256` is 256 x 1 x 1).
        for (; d > 0 && d < 3; ++d) {
          std::string name =
              std::string(std::string(what) == "--blockDim=" ? "blockDim_" : "gridDim_") + kDims[d];
          h.facts.push_back(eq(Poly::var(name), 1));
          h.fact_texts.push_back(display_names(name) + " == 1");
        }
      }
    }
  }
  return h;
}

} // namespace funmem::frontend
