// Z3 back-end of the prover (see solver.h). Polynomials are translated term by term;
// `/` and `%` keep C's truncating semantics (Z3's div is Euclidean), min/max/abs become
// if-then-else terms.
#include "analysis/solver.h"

#include "analysis/fact_bounds.h"

#include "analysis/quick_decide.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>

#include <z3++.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace funmem {

namespace {

bool is_choice(const Atom& a) {
  return a.kind == AtomKind::Min || a.kind == AtomKind::Max || a.kind == AtomKind::Abs;
}

/// Every min, max or abs atom of p none of whose arguments holds one.
void innermost_choices(const Poly& p, std::vector<AtomRef>& out) {
  for (const auto& [m, c] : p.terms())
    for (const auto& [a, e] : m) {
      const size_t before = out.size();
      for (const Poly& q : a->args)
        innermost_choices(q, out);
      if (out.size() == before && is_choice(*a) &&
          std::find(out.begin(), out.end(), a) == out.end())
        out.push_back(a);
    }
}

void innermost_choices(const Formula& f, std::vector<AtomRef>& out) {
  innermost_choices(f.lhs, out);
  innermost_choices(f.rhs, out);
  for (const Formula& k : f.kids)
    innermost_choices(k, out);
}

/// The cases of a min, max or abs atom: each a condition and the atom's value under it;
/// together they cover every assignment.
std::vector<std::pair<Formula, Poly>> choices(const Atom& a) {
  const Poly& x = a.args[0];
  switch (a.kind) {
  case AtomKind::Min:
    return {{le(x, a.args[1]), x}, {gt(x, a.args[1]), a.args[1]}};
  case AtomKind::Max:
    return {{ge(x, a.args[1]), x}, {lt(x, a.args[1]), a.args[1]}};
  default:
    return {{ge(x, Poly(0)), x}, {lt(x, Poly(0)), -x}};
  }
}

} // namespace

/// Interrupts the thread's Z3 context when a check runs `ms` of wall-clock time (0:
/// never): the last resort against a check whose work Z3 does not count. A thread of
/// its own, as Z3 4.8.12's timers deadlock when nested (`try_for`, and a solver's
/// `timeout` with its tactic's, seen in CI). Only whether it fired is read: no answer
/// is taken from the clock.
class Watchdog {
public:
  Watchdog(unsigned ms, z3::context& ctx) {
    if (ms == 0) return;
    thread_ = std::thread([this, ms, &ctx] {
      std::unique_lock<std::mutex> lock(mu_);
      if (!cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return done_; })) {
        fired_ = true;
        ctx.interrupt();
      }
    });
  }
  ~Watchdog() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  bool fired() {
    std::lock_guard<std::mutex> lock(mu_);
    return fired_;
  }

private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  bool fired_ = false;
  std::thread thread_;
};

struct Solver::Impl {
  std::vector<Formula> facts;
  unsigned timeout_ms;
  bool tactic_on = true; // Solver::core_only
  /// One Z3 context per thread, shared by every Solver: creating a context costs more
  /// than most queries (~10-25 ms), and an analysis makes many Solvers. Each Solver
  /// keeps its own z3::solver, so facts never mix.
  static z3::context& ctx_ref() {
    thread_local z3::context ctx;
    return ctx;
  }
  std::map<std::string, bool> cache;
  SolverStats stats;
  QuickDecider quick{facts, stats}; // the decisions without Z3
  std::optional<int> facts_degree_;
  int facts_degree() {
    if (!facts_degree_) {
      facts_degree_ = 0;
      for (const Formula& f : facts)
        facts_degree_ = std::max(*facts_degree_, degree(f));
    }
    return *facts_degree_;
  }
  std::vector<Env> samples; // assignments known to satisfy the facts (Z3 models)
  std::optional<std::string> facts_key_;

  /// The facts and the timeout as text: the key of the per-thread caches.
  const std::string& facts_key() {
    if (!facts_key_) {
      facts_key_ = std::to_string(timeout_ms) + "\x01";
      for (const Formula& f : facts)
        *facts_key_ += f.to_string() + "\x02";
    }
    return *facts_key_;
  }
  bool sampled = false;

  /// Keeps the model's values of `vars` as a sample (at most 16 are kept).
  void keep_sample(const z3::model& m, const std::vector<std::string>& vars) {
    if (samples.size() >= 16) return;
    Env env;
    for (const std::string& v : vars) {
      z3::expr val = m.eval(ctx_ref().int_const(v.c_str()), true);
      int64_t x;
      if (!val.is_numeral_i64(x)) return;
      env[v] = x;
    }
    if (!all_hold(facts, env)) return; // e.g. a division Z3 interprets differently
    samples.push_back(std::move(env));
  }

  /// Makes sure one model of the facts is known when the facts have one that the small
  /// search or Z3 finds.
  void ensure_sample() {
    if (sampled) return;
    sampled = true;
    if (auto env = quick.small_model()) {
      samples.push_back(*env);
      return;
    }
    z3::model m(ctx_ref());
    if (run({}, timeout_ms, &m) == SatResult::Sat) keep_sample(m, quick.fact_vars());
  }

  /// Whether `goal` is false under some known model of the facts (names the facts do not
  /// mention are free, and take 0): then it does not follow from them.
  bool refuted_by_sample(const Formula& goal) {
    ensure_sample();
    return false_at_one_of(goal, samples);
  }

  std::optional<z3::solver> base; // the facts, asserted once; queries push and pop

  std::optional<std::set<std::string>> fact_texts_;
  /// Whether `goal` (as text) is one of the facts or of their conjuncts.
  bool is_fact(const std::string& goal) {
    if (!fact_texts_) {
      fact_texts_.emplace();
      std::function<void(const Formula&)> add = [&](const Formula& f) {
        fact_texts_->insert(f.to_string());
        if (f.kind == Formula::Kind::And)
          for (const Formula& k : f.kids)
            add(k);
      };
      for (const Formula& f : facts)
        add(f);
    }
    return fact_texts_->count(goal) > 0;
  }

  std::optional<FactBounds> bounds; // built at the first question that reaches it
  const FactBounds& fact_bounds() {
    if (!bounds) bounds.emplace(facts);
    return *bounds;
  }

  Impl(std::vector<Formula> f, unsigned t) : facts(std::move(f)), timeout_ms(t) {}

  /// f with each min, max and abs atom whose case follows from the facts by the bounds
  /// replaced by its value in that case, innermost first (`min(1, max(0, n))` is 1 where
  /// `n >= 1`): equivalent to f wherever the facts hold, so a model of one is a model of
  /// the other.
  Formula settle_choices(Formula f) {
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<AtomRef> atoms;
      innermost_choices(f, atoms);
      for (const AtomRef& a : atoms)
        for (const auto& [cond, value] : choices(*a))
          if (quick.implied_by_bounds(cond) || fact_bounds().implies(cond)) {
            f = f.replace_atom(a, value);
            ++stats.settled;
            changed = true;
            break;
          }
    }
    return f;
  }

  /// At most this many min, max and abs atoms are split on (2^3 cases).
  static constexpr int kCaseDepth = 3;

  /// facts && extra |- goal by cases on the goal's min, max and abs atoms, innermost
  /// first: each case adds the atom's condition to `extra` and puts its value in its
  /// place, and must follow by the bounds procedures alone (no Z3). Exact, as the cases
  /// cover every assignment. Z3 rarely decides a product with such an atom within its
  /// budget (`m*min(n - 1, k) + m - 1 <= m*n - 1` from `m >= 0`), and spends all of it.
  bool by_cases(const Formula& goal, std::vector<Formula>& extra, int depth) {
    if (goal.free_vars().empty())
      if (auto v = goal.eval({})) return *v;
    std::vector<AtomRef> atoms;
    innermost_choices(goal, atoms);
    if (atoms.empty()) {
      if (extra.empty()) return false; // the facts alone were asked already
      std::vector<Formula> all = facts;
      all.insert(all.end(), extra.begin(), extra.end());
      SolverStats unused;
      QuickDecider q(all, unused);
      return q.implied_by_bounds(goal) || FactBounds(all).implies(goal);
    }
    if (depth == 0) return false;
    const AtomRef& a = atoms.front();
    for (const auto& [cond, value] : choices(*a)) {
      extra.push_back(cond);
      const bool ok = by_cases(goal.replace_atom(a, value), extra, depth - 1);
      extra.pop_back();
      if (!ok) return false;
    }
    return true;
  }

  z3::expr tdiv(const z3::expr& a, const z3::expr& b) {
    z3::expr zero = ctx_ref().int_val(0);
    return z3::ite(a >= zero, z3::ite(b > zero, a / b, -(a / -b)),
                   z3::ite(b > zero, -((-a) / b), (-a) / (-b)));
  }

  z3::expr atom(const Atom& a) {
    if (a.kind == AtomKind::Var) return ctx_ref().int_const(a.name.c_str());
    std::vector<z3::expr> v;
    for (const Poly& p : a.args)
      v.push_back(poly(p));
    switch (a.kind) {
    case AtomKind::Div:
      return tdiv(v[0], v[1]);
    case AtomKind::Mod:
      return v[0] - v[1] * tdiv(v[0], v[1]);
    case AtomKind::Min:
      return z3::ite(v[0] <= v[1], v[0], v[1]);
    case AtomKind::Max:
      return z3::ite(v[0] >= v[1], v[0], v[1]);
    case AtomKind::Abs:
      return z3::ite(v[0] >= 0, v[0], -v[0]);
    case AtomKind::Var:
      break;
    }
    return ctx_ref().int_val(0);
  }

  z3::expr poly(const Poly& p) {
    z3::expr sum = ctx_ref().int_val(0);
    bool first = true;
    for (const auto& [m, c] : p.terms()) {
      z3::expr t = ctx_ref().int_val(static_cast<int64_t>(c));
      bool unit = c == 1 && !m.empty();
      bool set = false;
      for (const auto& [a, e] : m) {
        z3::expr factor = atom(*a);
        for (int k = 0; k < e; ++k) {
          if (unit && !set) {
            t = factor;
            set = true;
          } else {
            t = t * factor;
          }
        }
      }
      sum = first ? t : sum + t;
      first = false;
    }
    return sum;
  }

  z3::expr formula(const Formula& f) {
    switch (f.kind) {
    case Formula::Kind::True:
      return ctx_ref().bool_val(true);
    case Formula::Kind::False:
      return ctx_ref().bool_val(false);
    case Formula::Kind::Cmp: {
      z3::expr a = poly(f.lhs), b = poly(f.rhs);
      switch (f.rel) {
      case Rel::Eq:
        return a == b;
      case Rel::Ne:
        return a != b;
      case Rel::Lt:
        return a < b;
      case Rel::Le:
        return a <= b;
      case Rel::Gt:
        return a > b;
      case Rel::Ge:
        return a >= b;
      }
      break;
    }
    case Formula::Kind::And:
    case Formula::Kind::Or: {
      z3::expr_vector v(ctx_ref());
      for (const Formula& k : f.kids)
        v.push_back(formula(k));
      return f.kind == Formula::Kind::And ? z3::mk_and(v) : z3::mk_or(v);
    }
    case Formula::Kind::Not:
      return !formula(f.kids[0]);
    }
    return ctx_ref().bool_val(false);
  }

  /// Divisions by symbolic divisors are only meaningful where the divisor is non-zero;
  /// Z3 leaves x/0 unconstrained, which can only make a proof harder, never unsound,
  /// because every proof obligation must hold for all interpretations of x/0.
  /// The wall-clock guard of the (linear) core, in budgets: far beyond what a counted
  /// check takes, also in the sanitizer build, whose allocator makes Z3 about five times
  /// slower (docs/prover.md).
  static constexpr uint64_t kWallGuard = 100;
  /// The guard of the core with its nlsat calls (problems that divide by a non-constant):
  /// 4 budgets, 20 in the sanitizer build, whose allocator makes Z3 about five times
  /// slower (docs/prover.md).
#ifdef FUNMEM_SANITIZE
  static constexpr uint64_t kDivisionGuard = 20;
#else
  static constexpr uint64_t kDivisionGuard = 4;
#endif
  /// The core's budget for a nonlinear problem before the tactic gets it.
  static constexpr unsigned kCoreNonlinearMs = 5;

  /// Adds the work Z3 counted since the last check on this thread (its context's
  /// resource count, which every solver of the context advances) to the solver's and
  /// the thread's totals.
  void count_work(const z3::solver& s) {
    const z3::stats st = s.statistics();
    for (unsigned k = 0; k < st.size(); ++k)
      if (st.key(k) == "rlimit count" && st.is_uint(k)) {
        const unsigned now = st.uint_value(k);
        const unsigned delta = now - last_count(); // modulo 2^32, as Z3 reports it
        last_count() = now;
        stats.z3_work += delta;
        thread_work() += delta;
        return;
      }
  }
  static unsigned& last_count() {
    thread_local unsigned c = 0;
    return c;
  }
  static int& thread_wall_guards() {
    thread_local int n = 0;
    return n;
  }
  static uint64_t& thread_work() {
    thread_local uint64_t w = 0;
    return w;
  }

  /// Whether `f` divides by (or takes a remainder of) a non-constant: Z3's tactic does
  /// not reason about such terms, the core does (with its full budget).
  static bool divides(const Poly& p) {
    for (const auto& [m, c] : p.terms())
      for (const auto& [a, e] : m) {
        if ((a->kind == AtomKind::Div || a->kind == AtomKind::Mod) && a->args.size() == 2 &&
            !a->args[1].constant())
          return true;
        for (const Poly& q : a->args)
          if (divides(q)) return true;
      }
    return false;
  }
  static bool divides(const Formula& f) {
    if (f.kind == Formula::Kind::Cmp && (divides(f.lhs) || divides(f.rhs))) return true;
    for (const Formula& k : f.kids)
      if (divides(k)) return true;
    return false;
  }
  std::optional<bool> facts_divide_;
  bool facts_divide() {
    if (!facts_divide_) {
      facts_divide_ = false;
      for (const Formula& f : facts)
        facts_divide_ = *facts_divide_ || divides(f);
    }
    return *facts_divide_;
  }

  /// A polynomial's degree with the arguments of its atoms (a remainder of a product
  /// is as nonlinear for Z3 as the product).
  static int degree(const Poly& p) {
    int d = 0;
    for (const auto& [m, c] : p.terms()) {
      int k = 0;
      for (const auto& [a, e] : m) {
        int ad = 1;
        for (const Poly& q : a->args)
          ad = std::max(ad, degree(q));
        k += e * ad;
      }
      d = std::max(d, k);
    }
    return d;
  }
  static int degree(const Formula& f) {
    int d = f.kind == Formula::Kind::Cmp ? std::max(degree(f.lhs), degree(f.rhs)) : 0;
    for (const Formula& k : f.kids)
      d = std::max(d, degree(k));
    return d;
  }

  /// facts && extra by Z3 within a budget of `timeout` ms of work: the incremental core
  /// (the facts asserted once, the extra in a push/pop scope), then, when it says
  /// unknown, the tactic Z3 picks for the problem's logic on a fresh solver (nlsat for
  /// nonlinear integer arithmetic). The core runs without its nlsat calls
  /// (`arith.nl.nra`), whose work Z3 4.8.12 does not count against the resource limit
  /// (there a check ran until a clock stopped it, so an answer depended on the machine's
  /// load; docs/prover.md, "Budgets"); for a nonlinear problem (degree 2 or more) it has
  /// kCoreNonlinearMs only, as its counted nonlinear work is slow.
  /// The tactic after the core: Z3's preprocessing, then nlsat (nonlinear) or the SMT
  /// core on the simplified problem (linear). Not the tactic Z3 picks for the logic
  /// (`qfnia`, `qflia`): those give their steps wall-clock limits (`try_for(..., 2000)`),
  /// which made an answer depend on the machine's load.
  static z3::tactic deterministic_tactic(bool nonlinear) {
    z3::context& c = ctx_ref();
    z3::params som(c);
    som.set("som", true);
    z3::tactic pre = z3::tactic(c, "simplify") & z3::tactic(c, "propagate-values") &
                     z3::tactic(c, "solve-eqs") & z3::tactic(c, "elim-uncnstr");
    if (nonlinear)
      return pre & z3::with(z3::tactic(c, "simplify"), som) & z3::tactic(c, "qfnra-nlsat");
    return pre & z3::tactic(c, "smt");
  }

  SatResult run(const std::vector<Formula>& extra, unsigned timeout, z3::model* out) {
    auto t0 = std::chrono::steady_clock::now();
    z3::check_result r = z3::unknown;
    try {
      // The budget is Z3's resource count (kWorkPerMs units per ms of budget), so that an
      // answer does not depend on the machine's load. The core keeps a wall-clock guard
      // against a check that runs away all the same (kWallGuard times the budget); a
      // check it stops is counted in `stats.wall_guard`, which the tests keep at 0.
      bool division = facts_divide();
      for (const Formula& f : extra)
        division = division || divides(f);
      const uint64_t guard_factor = division ? kDivisionGuard : kWallGuard;
      int deg = facts_degree();
      for (const Formula& f : extra)
        deg = std::max(deg, degree(f));
      auto limits = [](unsigned ms) {
        z3::params p(ctx_ref());
        const uint64_t units = static_cast<uint64_t>(ms) * Solver::kWorkPerMs;
        p.set("rlimit", ms && units < 4294967295u ? static_cast<unsigned>(units) : 0u);
        return p;
      };
      // The guard of a check: a watchdog that interrupts the context after `factor`
      // budgets (at least 50 ms each); a check it stops is counted.
      auto guarded = [&](unsigned ms, uint64_t factor, auto&& check) {
        Watchdog guard(ms ? static_cast<unsigned>(std::max<uint64_t>(ms, 50) * factor) : 0,
                       ctx_ref());
        z3::check_result c = check();
        if (c == z3::unknown && guard.fired()) {
          ++stats.wall_guard;
          ++thread_wall_guards();
        }
        return c;
      };
      auto incremental = [&](unsigned ms) {
        if (!base) {
          base.emplace(ctx_ref(), z3::solver::simple());
          for (const Formula& f : facts)
            base->add(formula(f));
        }
        // A linear problem: the core's nlsat calls are not needed.
        z3::params p = limits(ms);
        p.set("arith.nl.nra", false);
        base->set(p);
        base->push();
        for (const Formula& f : extra)
          base->add(formula(f));
        z3::check_result c = guarded(ms, guard_factor, [&] { return base->check(); });
        count_work(*base);
        if (c == z3::sat && out) *out = base->get_model();
        base->pop();
        return c;
      };
      // A solver used once: the facts and the extra asserted afresh, one guarded check.
      auto once = [&](z3::solver t, const z3::params& p, uint64_t factor, unsigned ms) {
        t.set(p);
        for (const Formula& f : facts)
          t.add(formula(f));
        for (const Formula& f : extra)
          t.add(formula(f));
        z3::check_result c = guarded(ms, factor, [&] { return t.check(); });
        count_work(t);
        if (c == z3::sat && out) *out = t.get_model();
        return c;
      };
      // The core on a solver of its own. Its nlsat calls (`arith.nl.nra`) are the work it
      // does not count: off, but for a problem that divides by a non-constant, which only
      // the core with them decides (the tactic does not reason about such terms). There
      // the core may run away: a guard of kDivisionGuard budgets stops it (counted: such
      // an answer may depend on the machine's load, the one place left where one can).
      auto fresh_core = [&](unsigned ms) {
        z3::params p = limits(ms);
        if (!division) p.set("arith.nl.nra", false);
        return once(z3::solver(ctx_ref(), z3::solver::simple()), p, guard_factor, ms);
      };
      // funmem's tactic (deterministic_tactic) on a solver of its own.
      auto tactic = [&](unsigned ms) {
        return once(deterministic_tactic(deg >= 2).mk_solver(), limits(ms), kWallGuard, ms);
      };
      // A nonlinear problem: first a short attempt of the core without nlsat (the easy
      // ones, most of a fuzz campaign's, need no more), then nlsat. It gets a solver of its own, as
      // the tactic does: in the shared incremental one, whose state earlier checks leave, such a
      // check ran for seconds of work Z3 did not count (corpus/cuda/nw-update.cu after other
      // kernels, once the range checks had changed what came before it).
      if (deg >= 2 || division)
        r = fresh_core(deg >= 2 && !division
                           ? std::min(timeout ? timeout : kCoreNonlinearMs, kCoreNonlinearMs)
                           : timeout);
      else
        r = incremental(timeout);
      if (r == z3::unknown && tactic_on) r = tactic(timeout);
    } catch (const z3::exception&) {
      r = z3::unknown;
    }
    stats.z3_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ++stats.z3_calls;
    if (r == z3::unknown) ++stats.z3_unknown;
    return r == z3::sat ? SatResult::Sat : r == z3::unsat ? SatResult::Unsat : SatResult::Unknown;
  }
};

namespace {

// Answers shared by all solvers of a thread, keyed by their facts (bounded: cleared
// when large).
std::unordered_map<std::string, bool>& shared_proofs() {
  thread_local std::unordered_map<std::string, bool> m;
  return m;
}
std::unordered_map<std::string, std::pair<SatResult, Env>>& shared_checks() {
  thread_local std::unordered_map<std::string, std::pair<SatResult, Env>> m;
  return m;
}

} // namespace

uint64_t Solver::thread_work() {
  return Impl::thread_work();
}
int Solver::thread_wall_guards() {
  return Impl::thread_wall_guards();
}

void Solver::clear_shared_cache() {
  shared_proofs().clear();
  shared_checks().clear();
}

Solver::Solver(std::vector<Formula> facts, unsigned timeout_ms)
    : impl_(std::make_unique<Impl>(std::move(facts), timeout_ms)) {}
Solver::~Solver() = default;

const std::vector<Formula>& Solver::facts() const {
  return impl_->facts;
}
void Solver::core_only() {
  impl_->tactic_on = false;
}

const SolverStats& Solver::stats() const {
  return impl_->stats;
}

bool Solver::proves(const Formula& goal) {
  ++impl_->stats.queries;
  if (goal.free_vars().empty()) {
    if (auto v = goal.eval({})) {
      ++impl_->stats.trivial;
      return *v;
    }
  }
  std::string key = goal.to_string();
  if (auto it = impl_->cache.find(key); it != impl_->cache.end()) {
    ++impl_->stats.cache_hits;
    return it->second;
  }
  const std::string shared_key = impl_->facts_key() + "\x01" + key;
  auto& shared = shared_proofs();
  if (auto it = shared.find(shared_key); it != shared.end()) {
    ++impl_->stats.cache_hits;
    impl_->cache.emplace(key, it->second);
    return it->second;
  }
  if (impl_->is_fact(key) || impl_->quick.implied_by_bounds(goal)) {
    ++impl_->stats.bounds;
    impl_->cache.emplace(key, true);
    return true;
  }
  const bool by_sample = impl_->refuted_by_sample(goal);
  if (by_sample || impl_->quick.refuted_by_search(goal)) {
    if (!by_sample) ++impl_->stats.searched;
    ++impl_->stats.refuted;
    impl_->cache.emplace(key, false);
    return false;
  }
  // The facts' bounds (intervals, linear bounds put in place, large assignments) before
  // Z3: the same answer whatever questions came before.
  const FactBounds& bounds = impl_->fact_bounds();
  if (bounds.implies(goal)) {
    ++impl_->stats.bounds;
    impl_->cache.emplace(key, true);
    return true;
  }
  if (bounds.implies(Formula::negate(goal)) || bounds.refuted_at_large_values(goal)) {
    ++impl_->stats.refuted;
    impl_->cache.emplace(key, false);
    return false;
  }
  bool split = false;
  try {
    std::vector<Formula> extra;
    split = impl_->by_cases(goal, extra, Impl::kCaseDepth);
  } catch (const SymbolicOverflow&) {
  }
  if (split) {
    ++impl_->stats.bounds;
    ++impl_->stats.cases;
    impl_->cache.emplace(key, true);
    return true;
  }
  z3::model m(impl_->ctx_ref());
  SatResult r = impl_->run({Formula::negate(goal)}, impl_->timeout_ms, &m);
  if (r == SatResult::Sat) {
    std::vector<std::string> vars = impl_->quick.fact_vars();
    for (const std::string& v : goal.free_vars())
      if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
    impl_->keep_sample(m, vars);
  }
  bool proved = r == SatResult::Unsat;
  if (shared.size() > 200000) shared.clear();
  if (r != SatResult::Unknown) shared.emplace(shared_key, proved);
  impl_->cache.emplace(key, proved);
  return proved;
}

SatResult Solver::check(const std::vector<Formula>& extra, const std::vector<std::string>& vars,
                        Env* model, unsigned timeout_ms) {
  // Solvers with the same facts ask the same questions (the prover's case splits, sc's
  // attempts): answers are shared through a per-thread cache.
  std::string key = impl_->facts_key() + "\x01" + std::to_string(timeout_ms) + "\x01";
  for (const Formula& f : extra)
    key += f.to_string() + "\x02";
  key += "\x01";
  if (model)
    for (const std::string& v : vars)
      key += v + ",";
  auto& shared = shared_checks();
  if (auto it = shared.find(key); it != shared.end()) {
    ++impl_->stats.cache_hits;
    if (model && it->second.first == SatResult::Sat) *model = it->second.second;
    return it->second.first;
  }
  auto answer = [&](SatResult r, Env env) {
    // Unknown (a timeout, perhaps from a loaded machine) is not shared.
    if (shared.size() > 200000) shared.clear();
    if (r != SatResult::Unknown) shared.emplace(key, std::make_pair(r, env));
    if (model && r == SatResult::Sat) *model = std::move(env);
    return r;
  };
  // Extra formulas that are true constants or follow from the names' lower bounds add
  // nothing to the facts; a false constant makes the question unsatisfiable.
  std::vector<Formula> rest;
  for (const Formula& given : extra) {
    Formula f = given;
    try {
      f = impl_->settle_choices(given);
    } catch (const SymbolicOverflow&) {
    }
    if (f.free_vars().empty())
      if (auto v = f.eval({})) {
        if (!*v) return answer(SatResult::Unsat, {});
        continue;
      }
    if (!impl_->quick.implied_by_bounds(f)) rest.push_back(f);
  }
  // The facts alone: a known model answers.
  if (rest.empty()) {
    impl_->ensure_sample();
    if (!impl_->samples.empty()) {
      ++impl_->stats.cache_hits;
      if (model) {
        Env env;
        for (const std::string& v : vars) {
          auto it = impl_->samples.front().find(v);
          env[v] = it == impl_->samples.front().end() ? 0 : it->second;
        }
        *model = std::move(env);
      }
      return SatResult::Sat;
    }
  }
  // Without Z3: a known model of the facts (Z3's so far, or the small search's) that
  // satisfies the extra formulas too, checked by evaluation, shows Sat when the caller
  // wants no model (callers that want one get Z3's: the prover's witnesses are built
  // from it, and a small model of the search is often a degenerate launch that does
  // not confirm); an extra formula whose negation follows from the names' lower bounds
  // shows Unsat.
  if (!model)
    for (const std::vector<Env>* models : std::initializer_list<const std::vector<Env>*>{
             &impl_->samples, &impl_->quick.search_models()})
      if (satisfying(*models, rest)) {
        ++impl_->stats.sat_by_model;
        return answer(SatResult::Sat, {});
      }
  for (const Formula& f : rest)
    if (auto c = complement(f); c && impl_->quick.implied_by_bounds(*c)) {
      ++impl_->stats.unsat_by_bounds;
      return answer(SatResult::Unsat, {});
    }
  z3::model m(impl_->ctx_ref());
  SatResult r = impl_->run(rest, timeout_ms, &m);
  if (r != SatResult::Sat || !model) return answer(r, {});
  Env env;
  for (const std::string& v : vars) {
    z3::expr val = m.eval(impl_->ctx_ref().int_const(v.c_str()), true);
    int64_t x;
    if (!val.is_numeral_i64(x)) return answer(SatResult::Unknown, {});
    env[v] = x;
  }
  if (!all_hold(impl_->facts, env) || !all_hold(rest, env)) return answer(SatResult::Unknown, {});
  return answer(r, std::move(env));
}

} // namespace funmem
