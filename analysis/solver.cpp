// Z3 back-end of the prover (see solver.h). Polynomials are translated term by term;
// `/` and `%` keep C's truncating semantics (Z3's div is Euclidean), min/max/abs become
// if-then-else terms.
#include "analysis/solver.h"

#include <z3++.h>

#include <chrono>
#include <optional>

namespace funmem {

struct Solver::Impl {
  std::vector<Formula> facts;
  unsigned timeout_ms;
  /// One Z3 context per thread, shared by every Solver: creating a context costs more
  /// than most queries (~10-25 ms), and an analysis makes many Solvers. Each Solver
  /// keeps its own z3::solver, so facts never mix.
  static z3::context& ctx_ref() {
    thread_local z3::context ctx;
    return ctx;
  }
  std::map<std::string, bool> cache;
  SolverStats stats;
  std::optional<z3::solver> base; // the facts, asserted once; queries push and pop

  Impl(std::vector<Formula> f, unsigned t) : facts(std::move(f)), timeout_ms(t) {}

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
        z3::expr base = atom(*a);
        for (int k = 0; k < e; ++k) {
          if (unit && !set) {
            t = base;
            set = true;
          } else {
            t = t * base;
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
  static constexpr uint64_t kRlimitPerMs = 2000;

  SatResult run(const std::vector<Formula>& extra, unsigned timeout, z3::model* out) {
    auto t0 = std::chrono::steady_clock::now();
    z3::check_result r = z3::unknown;
    try {
      if (!base) {
        base.emplace(ctx_ref());
        for (const Formula& f : facts)
          base->add(formula(f));
      }
      // The budget is Z3's resource count (about 2,000 units per ms on the machine of
      // docs/prover.md), so that an answer does not depend on the machine's load; the
      // wall-clock limit, twice the budget, stops checks whose work Z3 does not count
      // (some nonlinear ones) and checks on a machine far slower than that one.
      z3::params p(ctx_ref());
      const uint64_t units = static_cast<uint64_t>(timeout) * kRlimitPerMs;
      p.set("rlimit", timeout && units < 4294967295u ? static_cast<unsigned>(units) : 0u);
      const uint64_t wall = static_cast<uint64_t>(timeout) * 2;
      p.set("timeout", timeout && wall < 4294967295u ? static_cast<unsigned>(wall) : 4294967295u);
      base->set(p);
      base->push();
      for (const Formula& f : extra)
        base->add(formula(f));
      r = base->check();
      if (r == z3::sat && out) *out = base->get_model();
      base->pop();
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

Solver::Solver(std::vector<Formula> facts, unsigned timeout_ms)
    : impl_(std::make_unique<Impl>(std::move(facts), timeout_ms)) {}
Solver::~Solver() = default;

const std::vector<Formula>& Solver::facts() const {
  return impl_->facts;
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
  bool proved = impl_->run({Formula::negate(goal)}, impl_->timeout_ms, nullptr) == SatResult::Unsat;
  impl_->cache.emplace(key, proved);
  return proved;
}

SatResult Solver::check(const std::vector<Formula>& extra, const std::vector<std::string>& vars,
                        Env* model, unsigned timeout_ms) {
  z3::model m(impl_->ctx_ref());
  SatResult r = impl_->run(extra, timeout_ms, &m);
  if (r != SatResult::Sat || !model) return r;
  Env env;
  for (const std::string& v : vars) {
    z3::expr val = m.eval(impl_->ctx_ref().int_const(v.c_str()), true);
    int64_t x;
    if (!val.is_numeral_i64(x)) return SatResult::Unknown;
    env[v] = x;
  }
  for (const auto& fs : {impl_->facts, extra})
    for (const Formula& f : fs) {
      auto ok = f.eval(env);
      if (!ok || !*ok) return SatResult::Unknown;
    }
  *model = env;
  return r;
}

} // namespace funmem
