// The race witness search (checker.h): small launches enumerated under the facts,
// every access of two threads replayed, the first two that meet reported.
#include "frontend/race/checker.h"

namespace funmem::frontend::detail {

std::optional<RaceWitness> Checker::search() {
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
    // The model's values with its launch made small (at most 4 blocks and 64 threads in
    // each dimension) first: Z3 may name a grid of 2^31 - 1 blocks, a launch no run can
    // replay, where a small one shows the same race.
    Env small = e;
    bool smaller = false;
    for (int d = 0; d < 3; ++d)
      for (const auto& [n, cap] : {std::pair{gdim(d), int64_t{4}}, std::pair{bdim(d), int64_t{64}}})
        if (auto it = small.find(n); it != small.end() && it->second > cap) {
          it->second = cap;
          smaller = true;
        }
    if (smaller) candidates.push_back(small);
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
  const std::vector<int64_t> pv = {0, 1, 2, 4, 8, -1};
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
  // Many threads touching one place are n^2 pairs: they count against a budget of their
  // own (the enumeration's may be spent already).
  int64_t pairs = 4 * static_cast<int64_t>(std::max(opt_.search_limit, 1000));
  std::optional<RaceWitness> below; // the first race found at a negative address
  std::set<std::string> fixed;      // launch sizes the facts fix, beyond CUDA's limits or not
  for (int d = 0; d < 3; ++d)
    for (const std::string& n : {bdim(d), gdim(d)})
      if (fixed_size(n)) fixed.insert(n);
  for (Env env : candidates) {
    // Unused dimensions have size 1 (the facts may say so).
    for (int d = 0; d < 3; ++d)
      if (std::find(dims_.begin(), dims_.end(), d) == dims_.end()) {
        env[bdim(d)] = 1;
        env[gdim(d)] = 1;
      }
    settle_equalities(env, knobs);
    bool ok = launchable(env, fixed); // a witness CUDA cannot launch is none
    for (const Formula& f : given_) {
      auto t = f.eval(env);
      if (!t || !*t) ok = false;
    }
    // A parameter's value lies in its C type.
    for (const Formula& f : k_.type_facts) {
      auto t = f.eval(env);
      if (!t || !*t) ok = false;
    }
    if (!ok) continue;
    // A race below the object's start is as real (the pointer may point into a larger
    // allocation), but one at an address >= 0 is what a run with the pointer at its
    // buffer's start shows: the search goes on for one while its budget lasts.
    if (auto w = search_launch(env, budget, pairs)) {
      if (w->address >= 0) return w;
      if (!below) below = w;
    }
    if (budget <= 0 || pairs <= 0) break;
  }
  return below;
}

void Checker::settle_equalities(Env& env, const std::vector<std::string>& knobs) const {
  std::vector<const Formula*> eqs;
  std::function<void(const Formula&)> collect = [&](const Formula& f) {
    if (f.kind == Formula::Kind::Cmp && f.rel == Rel::Eq) eqs.push_back(&f);
    if (f.kind == Formula::Kind::And)
      for (const Formula& k : f.kids)
        collect(k);
    // C's two cases of a signed value compared as unsigned: the first is the value's own.
    if (f.kind == Formula::Kind::Or && !f.kids.empty()) collect(f.kids[0]);
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

std::optional<RaceWitness> Checker::search_launch(const Env& launch, int& budget, int64_t& pairs) {
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
      // Each thread counts (a large launch whose accesses it cannot replay is work too).
      if (--budget <= 0) {
        spent = true;
        break;
      }
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
  // Threads whose values all stay in their types (memoised by block and thread).
  std::map<std::pair<std::vector<int64_t>, std::vector<int64_t>>, bool> faithful;
  // Replaying the range checks has steps of its own: the enumeration may have spent
  // the search's.
  int replay = std::max(opt_.search_limit / 4, 1000);
  auto in_c = [&](const Event& e) {
    auto [it, fresh] = faithful.emplace(std::make_pair(e.block, e.thread), false);
    if (fresh) it->second = in_range(launch, e.block, e.thread, replay);
    return it->second;
  };
  // By object and address, in order; a place at an address >= 0 first (search()).
  std::map<std::pair<std::string, int64_t>, std::vector<size_t>> by_place;
  for (size_t e = 0; e < events.size(); ++e)
    by_place[{k_.accesses[static_cast<size_t>(events[e].access)].array, events[e].address}]
        .push_back(e);
  std::optional<RaceWitness> below;
  for (const auto& [place, es] : by_place)
    for (size_t x : es) {
      if (!k_.accesses[static_cast<size_t>(events[x].access)].write) continue;
      for (size_t y : es) {
        if (--pairs < 0) return below;
        const Event &ex = events[x], &ey = events[y];
        const Access &ax = k_.accesses[static_cast<size_t>(ex.access)],
                     &ay = k_.accesses[static_cast<size_t>(ey.access)];
        if (ax.atomic && ay.atomic && ax.width > 0 && ax.width == ay.width) continue;
        if (equal_values(ax, ay)) continue;
        // Under the equality abstraction two writes race only where they store different
        // values: a witness only where both values are known and differ.
        if (opt_.equal_writes && ax.write && ay.write &&
            !(ex.stored && ey.stored && *ex.stored != *ey.stored))
          continue;
        if (ex.block == ey.block && ex.thread == ey.thread) continue;
        bool same_block = ex.block == ey.block;
        if (same_block && (ax.phase != ay.phase || ex.shared_key != ey.shared_key)) continue;
        // Lock-step warps: a pair in one warp is not reported (only a same-iteration
        // pair of one statement's writes could race there).
        if (same_block && opt_.warp_sync > 0 &&
            linear(ex.thread) / opt_.warp_sync == linear(ey.thread) / opt_.warp_sync)
          continue;
        // A `__syncwarp` between them may order two threads of one warp.
        if (same_block && k_.warp_barriers && linear(ex.thread) / 32 == linear(ey.thread) / 32)
          continue;
        if (!same_block && (ax.space == Space::Shared || opt_.only_intra_group)) continue;
        if (!same_block && ax.grid_phase != ay.grid_phase) continue;
        if (!in_c(ex) || !in_c(ey)) continue;
        RaceWitness w;
        w.array = ax.array;
        w.address = ex.address;
        w.unit = ax.unit;
        w.launch = launch;
        w.first = describe(ex, ax);
        w.second = describe(ey, ay);
        if (w.address >= 0) return w;
        if (!below) below = w;
      }
    }
  return below;
}

std::string Checker::triple(const std::vector<int64_t>& v) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + ")";
}

std::string Checker::describe(const Event& e, const Access& a) {
  return "block " + triple(e.block) + " thread " + triple(e.thread) + " " +
         (a.write ? "writes " : "reads ") + a.array + "[" + std::to_string(e.address) + "] (" +
         a.text + " at " + std::to_string(a.pos.line) + ":" + std::to_string(a.pos.col) + ")";
}

bool Checker::in_range(const Env& launch, const std::vector<int64_t>& bi,
                       const std::vector<int64_t>& ti, int& budget) const {
  Env env = launch;
  for (int d = 0; d < 3; ++d) {
    env[tid(d)] = ti[static_cast<size_t>(d)];
    env[bid(d)] = bi[static_cast<size_t>(d)];
  }
  for (const RangeCheck& rc : k_.range_checks)
    if (!range_holds(rc, 0, env, budget)) return false;
  return true;
}

bool Checker::range_holds(const RangeCheck& rc, size_t depth, Env& env, int& budget) const {
  if (--budget <= 0) return false;
  // A check whose condition mentions an unknown value (or a counter of a loop whose
  // bounds do): so does every value it feeds, and the replay evaluates no access with
  // such a value (walk()). Guards that cannot be evaluated leave the check in force.
  auto holds_here = [&] {
    for (const Formula& g : rc.guards)
      if (auto t = g.eval(env); t && !*t) return true; // not on this thread's path
    auto t = rc.cond.eval(env);
    return !t || *t;
  };
  if (depth == rc.loops.size()) return holds_here();
  const LoopCtx& l = rc.loops[depth];
  auto lower = l.lower.eval(env), count = l.count.eval(env);
  if (!lower || !count) return holds_here();
  auto at = [&](int64_t k) {
    env[l.var] = k;
    const bool ok = range_holds(rc, depth + 1, env, budget);
    env.erase(l.var);
    return ok;
  };
  if (l.doubling) {
    for (int64_t k = *lower; l.inclusive ? k <= *count : k < *count; k *= 2) {
      if (!at(k)) return false;
      if (k <= 0 || k > (int64_t{1} << 40)) return false;
    }
    return true;
  }
  if (l.geometric) {
    for (int64_t k = *lower; l.inclusive ? k >= *count : k > *count; k /= 2) {
      if (!at(k)) return false;
      if (k == 0) break;
    }
    return true;
  }
  auto step = l.step.eval(env);
  if (!step) return holds_here();
  if (*count > 4096) return false; // not replayed in full: unsure
  for (int64_t j = 0; j < *count; ++j)
    if (!at(*lower + *step * j)) return false;
  return true;
}

void Checker::walk(int a, size_t depth, Env& env, const std::vector<int64_t>& bi,
                   const std::vector<int64_t>& ti, const std::vector<int64_t>& key,
                   std::vector<Event>& out, int& budget) {
  const Access& acc = k_.accesses[static_cast<size_t>(a)];
  if (--budget <= 0) return;
  if (depth == acc.loops.size()) {
    for (const Formula& g : acc.guards) {
      auto t = g.eval(env);
      if (!t || !*t) return;
    }
    auto addr = acc.index.eval(env);
    if (!addr) return;
    // The stored value, where its range checks hold (else C wrapped it: not known).
    std::optional<int64_t> stored = acc.stored ? acc.stored->eval(env) : std::nullopt;
    for (const Formula& f : acc.stored_if)
      if (auto t = f.eval(env); !t || !*t) stored.reset();
    out.push_back(Event{a, *addr, bi, ti, key, stored});
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
      // From a negative start `k /= 2` reaches 0 but `k >>= 1` stays at -1: only the
      // values both reach are events.
      if (k == 0 || k == -1 || budget <= 0) break;
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

} // namespace funmem::frontend::detail
