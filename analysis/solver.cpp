// Z3 back-end of the prover (see solver.h). Polynomials are translated term by term;
// `/` and `%` keep C's truncating semantics (Z3's div is Euclidean), min/max/abs become
// if-then-else terms.
#include "analysis/solver.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>

#include <z3++.h>

#include <chrono>
#include <optional>

namespace funmem {

namespace {

/// A formula equivalent to !f without a negation at its top, where one is at hand.
std::optional<Formula> complement(const Formula& f) {
  switch (f.kind) {
  case Formula::Kind::Cmp: {
    Formula c = f;
    c.rel = complement(f.rel);
    return c;
  }
  case Formula::Kind::Not:
    return f.kids.at(0);
  case Formula::Kind::And:
  case Formula::Kind::Or: {
    Formula c;
    c.kind = f.kind == Formula::Kind::And ? Formula::Kind::Or : Formula::Kind::And;
    for (const Formula& k : f.kids) {
      auto n = complement(k);
      if (!n) return std::nullopt;
      c.kids.push_back(std::move(*n));
    }
    return c;
  }
  default:
    return std::nullopt;
  }
}

/// Every formula evaluates to true under env (a name it lacks is an error: false).
bool all_hold(const std::vector<Formula>& fs, const Env& env) {
  for (const Formula& f : fs) {
    auto ok = f.eval(env);
    if (!ok || !*ok) return false;
  }
  return true;
}

} // namespace

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
  std::optional<std::map<std::string, Poly>> shift; // name -> name + its lower bound
  std::optional<std::map<std::string, Poly>> defs_; // see lower_definitions()
  std::optional<std::vector<Env>> search_models_;   // see search_models()
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

  std::vector<std::string> fact_vars() const {
    std::set<std::string> vs;
    for (const Formula& f : facts)
      for (const std::string& v : f.free_vars())
        vs.insert(v);
    return {vs.begin(), vs.end()};
  }

  /// The comparisons the facts are conjunctions of (disjunctions and negations are left
  /// out: what is derived from the rest is still implied by the facts).
  std::vector<const Formula*> comparisons() const {
    std::vector<const Formula*> out, todo;
    for (const Formula& f : facts)
      todo.push_back(&f);
    while (!todo.empty()) {
      const Formula* f = todo.back();
      todo.pop_back();
      if (f->kind == Formula::Kind::And)
        for (const Formula& k : f->kids)
          todo.push_back(&k);
      else if (f->kind == Formula::Kind::Cmp)
        out.push_back(f);
    }
    return out;
  }

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

  /// A model of the facts by a small search: names defined by an equation of the
  /// facts (`n == b*q + 1`) are computed, the others tried in 0..3 (at most 4^6
  /// assignments). Cheaper than Z3 for the usual facts; nullopt when none is found.
  std::optional<Env> small_model() const {
    std::vector<std::string> vars = fact_vars();
    std::map<std::string, Poly> defs;
    for (const Formula* f : comparisons()) {
      if (f->kind != Formula::Kind::Cmp || f->rel != Rel::Eq) continue;
      for (const auto& [x, e] : {std::pair{f->lhs, f->rhs}, std::pair{f->rhs, f->lhs}}) {
        auto v = x.free_vars();
        if (v.size() != 1 || !(x == Poly::var(v[0])) || defs.count(v[0])) continue;
        auto ev = e.free_vars();
        if (std::find(ev.begin(), ev.end(), v[0]) != ev.end()) continue;
        defs.emplace(v[0], e);
        break;
      }
    }
    std::vector<std::string> free;
    for (const std::string& v : vars)
      if (!defs.count(v)) free.push_back(v);
    if (free.size() > 6) return std::nullopt;
    size_t combos = 1;
    for (size_t k = 0; k < free.size(); ++k)
      combos *= 4;
    for (size_t t = 0; t < combos; ++t) {
      Env env;
      size_t x = t;
      for (const std::string& v : free) {
        env[v] = static_cast<int64_t>(x % 4);
        x /= 4;
      }
      // Definitions may use each other: evaluate until nothing changes.
      for (size_t round = 0; round <= defs.size(); ++round)
        for (const auto& [v, e] : defs)
          if (auto val = e.eval(env)) env[v] = *val;
      if (all_hold(facts, env)) return env;
    }
    return std::nullopt;
  }

  /// Makes sure one model of the facts is known when the facts have one that the small
  /// search or Z3 finds.
  void ensure_sample() {
    if (sampled) return;
    sampled = true;
    if (auto env = small_model()) {
      samples.push_back(*env);
      return;
    }
    z3::model m(ctx_ref());
    if (run({}, timeout_ms, &m) == SatResult::Sat) keep_sample(m, fact_vars());
  }

  /// Whether `goal` is false under some known model of the facts (names the facts do not
  /// mention are free, and take 0): then it does not follow from them.
  bool refuted_by_sample(const Formula& goal) {
    ensure_sample();
    return false_at_one_of(goal, samples);
  }

  /// Whether `goal` evaluates to false at one of `models` (names they lack take 0).
  static bool false_at_one_of(const Formula& goal, const std::vector<Env>& models) {
    const std::vector<std::string> vars = goal.free_vars();
    for (const Env& m : models) {
      Env env = m;
      for (const std::string& v : vars)
        env.emplace(v, 0);
      auto val = goal.eval(env);
      if (val && !*val) return true;
    }
    return false;
  }

  /// Assignments of the facts' names that satisfy every fact, from a small search: the
  /// names are generated through lower_definitions() (their new names >= 0 all taking
  /// the same value from {0, 1, 2, 4, 9}, then every combination of 0..k for growing k;
  /// at most 256 tried), names without a definition taking the values directly; each is
  /// checked against the facts by evaluation. Computed once per solver.
  const std::vector<Env>& search_models() {
    if (search_models_) return *search_models_;
    search_models_.emplace();
    const std::map<std::string, Poly>& defs = lower_definitions();
    const std::vector<std::string> vars = fact_vars();
    std::set<std::string> leaf_set;
    for (const std::string& v : vars) {
      auto it = defs.find(v);
      if (it == defs.end()) {
        leaf_set.insert(v);
        continue;
      }
      for (const std::string& l : it->second.free_vars())
        leaf_set.insert(l);
    }
    const std::vector<std::string> leaves(leaf_set.begin(), leaf_set.end());
    if (leaves.size() > 12) return *search_models_;
    static constexpr int64_t kValues[] = {0, 1, 2, 4, 9};
    int budget = 256;
    auto try_leaves = [&](const std::vector<int>& pick) {
      Env leaf, env;
      for (size_t i = 0; i < leaves.size(); ++i)
        leaf[leaves[i]] = kValues[pick[i]];
      for (const std::string& v : vars) {
        auto it = defs.find(v);
        auto val = it == defs.end() ? std::optional<int64_t>(leaf[v]) : it->second.eval(leaf);
        if (!val) return;
        env[v] = *val;
      }
      if (all_hold(facts, env)) search_models_->push_back(std::move(env));
    };
    for (int k = 0; k < 5 && budget > 0; ++k, --budget)
      try_leaves(std::vector<int>(leaves.size(), k));
    for (int k = 1; k < 5 && budget > 0; ++k) {
      // Every combination of the first k + 1 values that uses the value k.
      std::vector<int> pick(leaves.size(), 0);
      while (budget > 0) {
        if (std::find(pick.begin(), pick.end(), k) != pick.end()) {
          --budget;
          try_leaves(pick);
        }
        size_t i = 0;
        while (i < pick.size() && pick[i] == k)
          pick[i++] = 0;
        if (i == pick.size()) break;
        ++pick[i];
      }
    }
    return *search_models_;
  }

  /// Whether `goal` is false at one of search_models() (names only the goal mentions
  /// take 0): a counterexample checked by evaluation. (Not kept as a sample: the samples
  /// are Z3's models, whose larger values refute what the small search cannot.)
  bool refuted_by_search(const Formula& goal) { return false_at_one_of(goal, search_models()); }

  /// The constant lower bounds the facts give single names (`b > 0`, `i >= 1`, `0 <= i`,
  /// `n == 5`), as the substitution x -> x + lb(x).
  const std::map<std::string, Poly>& lower_bounds() {
    if (shift) return *shift;
    std::map<std::string, int64_t> lb;
    for (const Formula* f : comparisons())
      if (auto b = bound_of(*f)) {
        auto it = lb.find(b->first);
        if (it == lb.end() || it->second < b->second) lb[b->first] = b->second;
      }
    shift.emplace();
    for (const auto& [x, c] : lb)
      (*shift)[x] = Poly::var(x) + Poly(c);
    return *shift;
  }

  /// The constant lower bound a comparison gives one name (`x >= c`, `x > c`, `c < x`,
  /// `x == c`).
  static std::optional<std::pair<std::string, int64_t>> bound_of(const Formula& f) {
    if (f.kind != Formula::Kind::Cmp) return std::nullopt;
    // var REL const or const REL var
    auto var_of = [](const Poly& p) -> std::optional<std::string> {
      auto v = p.free_vars();
      if (v.size() != 1 || !(p == Poly::var(v[0]))) return std::nullopt;
      return v[0];
    };
    auto x = var_of(f.lhs);
    auto c = f.rhs.constant();
    Rel r = f.rel;
    if (!x || !c) {
      x = var_of(f.rhs);
      c = f.lhs.constant();
      r = mirror(r); // c REL x  is  x mirror(REL) c
    }
    if (!x || !c) return std::nullopt;
    if (r == Rel::Ge || r == Rel::Eq) return std::pair{*x, *c};
    if (r == Rel::Gt && *c < INT64_MAX) return std::pair{*x, *c + 1};
    return std::nullopt;
  }

  /// The names the facts bound from below by other names: a comparison linear in y
  /// (coefficient 1, y in no other term) with no opaque atom, `y - r - c >= 0` (`nb >
  /// blockIdx + it + 1`, `b > t`, `n == b*q + 1`), defines y = r + c + s with a new name
  /// s >= 0 (s = 0 for an equation), provided r, its names resolved, has no negative
  /// coefficient. Each y takes one definition (an equation first, then the one with the
  /// most names, then the largest c), the names of r resolved in turn (a definition that
  /// would be circular is passed over); names without one are shifted by their constant
  /// lower bound as in lower_bounds(). Every assignment that satisfies the facts gives
  /// the new names values >= 0, so a polynomial with no negative coefficient after the
  /// substitution is >= 0 wherever the facts hold.
  const std::map<std::string, Poly>& lower_definitions() {
    if (defs_) return *defs_;
    struct Cand {
      Poly rest; // r + c
      bool exact;
      size_t names;
      int64_t c;
    };
    std::map<std::string, std::vector<Cand>> cands;
    auto consider = [&](const Poly& e, bool exact) { // e >= 0
      for (const std::string& y : e.free_vars()) {
        const Poly vy = Poly::var(y);
        const Poly rest = vy - e; // e = y - rest
        bool ok = true;
        int64_t k = 0;
        for (const auto& [mono, c] : rest.terms()) {
          if (mono.empty()) k = c; // the constant may have any sign
          for (const auto& [atom, power] : mono)
            ok = ok && atom->kind == AtomKind::Var && atom->name != y;
        }
        if (ok) cands[y].push_back({rest, exact, rest.free_vars().size(), k});
      }
    };
    for (const Formula* f : comparisons()) {
      const Poly d = f->lhs - f->rhs;
      switch (f->rel) {
      case Rel::Eq:
        consider(d, true);
        consider(-d, true);
        break;
      case Rel::Ge:
        consider(d, false);
        break;
      case Rel::Gt:
        consider(d - 1, false);
        break;
      case Rel::Le:
        consider(-d, false);
        break;
      case Rel::Lt:
        consider(-d - 1, false);
        break;
      default:
        break;
      }
    }
    for (auto& [y, cs] : cands)
      std::stable_sort(cs.begin(), cs.end(), [](const Cand& a, const Cand& b) {
        if (a.exact != b.exact) return a.exact;
        if (a.names != b.names) return a.names > b.names;
        return a.c > b.c;
      });
    const std::map<std::string, Poly>& shifted = lower_bounds();
    std::map<std::string, Poly> done;
    std::set<std::string> busy;
    // resolve(y): y in terms of names that are >= 0; nullopt when y has no lower bound.
    std::function<std::optional<Poly>(const std::string&)> resolve =
        [&](const std::string& y) -> std::optional<Poly> {
      if (auto it = done.find(y); it != done.end()) return it->second;
      busy.insert(y);
      std::optional<Poly> out;
      if (auto it = cands.find(y); it != cands.end())
        for (const Cand& c : it->second) {
          std::map<std::string, Poly> sub;
          bool ok = true;
          for (const std::string& v : c.rest.free_vars()) {
            std::optional<Poly> r = busy.count(v) ? std::nullopt : resolve(v);
            if (!r) {
              ok = false;
              break;
            }
            sub.emplace(v, *r);
          }
          if (!ok) continue;
          try {
            out = c.rest.substitute(sub);
          } catch (const SymbolicOverflow&) {
            continue;
          }
          // Only a bound that grows with the new names is of use (`q > diag - i` with
          // diag = i + s gives q = s + 1 + s'); another is passed over.
          bool grows = true;
          for (const auto& [mono, k] : out->terms())
            grows = grows && (mono.empty() || k > 0);
          if (!grows) {
            out.reset();
            continue;
          }
          if (!c.exact) *out = *out + Poly::var("$s:" + y);
          break;
        }
      if (!out)
        if (auto it = shifted.find(y); it != shifted.end()) out = it->second;
      busy.erase(y);
      if (out) done.emplace(y, *out);
      return out;
    };
    for (const auto& [y, cs] : cands)
      resolve(y);
    for (const auto& [y, e] : shifted)
      done.emplace(y, e);
    defs_ = std::move(done);
    return *defs_;
  }

  /// goal proved by sign alone: written as p >= 0, with every name x replaced by
  /// x + lb(x) (so that the new x is >= 0), p has no negative coefficient and no opaque
  /// atom. Sound (a subset of the facts suffices), cheap, and it decides most of the
  /// prover's bound conditions (`i*b + b - 1 >= 0` with i >= 0, b >= 1). Failing that,
  /// the same with the names replaced by lower_definitions() (`b*nb - b*i - b - t - 1 >=
  /// 0` with t < b, i + 1 < nb).
  bool by_lower_bounds(const Formula& goal) { return by_bounds(goal, lower_bounds(), 0); }

  /// by_lower_bounds() under the substitution `sh` (names shifted by their lower
  /// bounds). A disjunction none of whose disjuncts follows alone is split on a
  /// disjunct whose complement bounds a name: `m <= 0 || P` holds when P does with
  /// m >= 1 (at most two splits deep; names bounded by names are then not used).
  bool by_bounds(const Formula& goal, const std::map<std::string, Poly>& sh, int splits) {
    switch (goal.kind) {
    case Formula::Kind::And:
      for (const Formula& k : goal.kids)
        if (!by_bounds(k, sh, splits)) return false;
      return true;
    case Formula::Kind::Or:
      for (const Formula& k : goal.kids)
        if (by_bounds(k, sh, splits)) return true;
      if (splits >= 2 || goal.kids.size() < 2) return false;
      for (size_t i = 0; i < goal.kids.size(); ++i) {
        auto c = complement(goal.kids[i]);
        auto b = c ? bound_of(*c) : std::nullopt;
        if (!b) continue;
        const auto& [x, lb] = *b;
        std::map<std::string, Poly> sh2 = sh;
        auto it = sh2.find(x);
        if (it != sh2.end()) {
          auto old = (it->second - Poly::var(x)).constant();
          if (!old || *old >= lb) continue; // no stronger than what is known
        }
        sh2[x] = Poly::var(x) + Poly(lb);
        std::vector<Formula> rest;
        for (size_t j = 0; j < goal.kids.size(); ++j)
          if (j != i) rest.push_back(goal.kids[j]);
        if (by_bounds(rest.size() == 1 ? rest[0] : Formula::disj(rest), sh2, splits + 1)) {
          ++stats.split;
          return true;
        }
      }
      return false;
    case Formula::Kind::Not:
      if (auto c = complement(goal.kids.at(0))) return by_bounds(*c, sh, splits);
      return false;
    case Formula::Kind::True:
      return true;
    case Formula::Kind::Cmp:
      break;
    default:
      return false;
    }
    Poly p;
    switch (goal.rel) {
    case Rel::Ge:
      p = goal.lhs - goal.rhs;
      break;
    case Rel::Gt:
      p = goal.lhs - goal.rhs - 1;
      break;
    case Rel::Le:
      p = goal.rhs - goal.lhs;
      break;
    case Rel::Lt:
      p = goal.rhs - goal.lhs - 1;
      break;
    default:
      return false;
    }
    if (nonnegative_under(p, sh)) return true;
    if (splits > 0 || !nonnegative_under(p, lower_definitions())) return false;
    ++stats.definitions;
    return true;
  }

  /// p >= 0 because, with the names replaced by `sh` (names that are >= 0), no
  /// coefficient is negative and every opaque atom is >= 0 (no_negative_term), perhaps
  /// after opaque atoms of negative terms are replaced by upper bounds (above_bounds).
  bool nonnegative_under(const Poly& p, const std::map<std::string, Poly>& sh) {
    for (const std::string& v : p.free_vars())
      if (!sh.count(v)) return false;
    Poly q;
    try {
      q = p.substitute(sh);
    } catch (const SymbolicOverflow&) {
      return false;
    }
    if (no_negative_term(q)) return true;
    if (!above_bounds(q, kAtomBoundDepth)) return false;
    ++stats.atom_bounds;
    return true;
  }

  static constexpr int kAtomBoundDepth = 3;

  /// q >= 0 when its names are, through upper bounds of opaque atoms: a term c*M*A with
  /// c < 0, M >= 0 (no_negative_term) and A <= U is >= c*M*U, so q is >= the polynomial
  /// with A replaced by U in that term, and that one >= 0 shows q >= 0. The bounds, for
  /// a >= 0 and b >= 1: a / b <= a; a % b <= b - 1 and <= a; min(a, b) <= a and <= b
  /// (always). Atoms of power 1 only; up to `depth` replacements, every choice tried.
  static bool above_bounds(const Poly& q, int depth) {
    if (no_negative_term(q)) return true;
    if (depth == 0) return false;
    for (const auto& [mono, c] : q.terms()) {
      if (c >= 0) continue;
      for (size_t k = 0; k < mono.size(); ++k) {
        const auto& [atom, power] = mono[k];
        if (power != 1) continue;
        const std::vector<Poly>& a = atom->args;
        std::vector<Poly> uppers;
        switch (atom->kind) {
        case AtomKind::Div:
          if (no_negative_term(a[0]) && no_negative_term(a[1] - Poly(1))) uppers = {a[0]};
          break;
        case AtomKind::Mod:
          if (no_negative_term(a[0]) && no_negative_term(a[1] - Poly(1)))
            uppers = {a[1] - Poly(1), a[0]};
          break;
        case AtomKind::Min:
          uppers = {a[0], a[1]};
          break;
        default:
          break;
        }
        if (uppers.empty()) continue;
        Monomial rest = mono;
        rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
        const Poly m = Poly::monomial(rest, 1);
        if (!no_negative_term(m)) continue;
        const Poly term = Poly::monomial(mono, c);
        for (const Poly& u : uppers) {
          try {
            if (above_bounds(q - term + Poly(c) * m * u, depth - 1)) return true;
          } catch (const SymbolicOverflow&) {
          }
        }
      }
    }
    return false;
  }

  /// q >= 0 when its names are: no negative coefficient, and every opaque atom one
  /// that is >= 0 when its names are (a / b and a % b with a >= 0 and b >= 1, abs,
  /// max with an argument >= 0, min with both).
  static bool no_negative_term(const Poly& q) {
    for (const auto& [mono, c] : q.terms()) {
      if (c < 0) return false;
      for (const auto& [atom, power] : mono) {
        const std::vector<Poly>& a = atom->args;
        switch (atom->kind) {
        case AtomKind::Var:
        case AtomKind::Abs:
          break;
        case AtomKind::Div:
        case AtomKind::Mod:
          if (!no_negative_term(a[0]) || !no_negative_term(a[1] - Poly(1))) return false;
          break;
        case AtomKind::Max:
          if (!no_negative_term(a[0]) && !no_negative_term(a[1])) return false;
          break;
        case AtomKind::Min:
          if (!no_negative_term(a[0]) || !no_negative_term(a[1])) return false;
          break;
        }
      }
    }
    return true;
  }
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
  static constexpr int kTacticDegree = 3;

  static int degree(const Formula& f) {
    int d = f.kind == Formula::Kind::Cmp ? std::max(f.lhs.degree(), f.rhs.degree()) : 0;
    for (const Formula& k : f.kids)
      d = std::max(d, degree(k));
    return d;
  }

  /// facts && extra by Z3 within `timeout` ms. The incremental core (the facts asserted
  /// once, the extra in a push/pop scope) first, Z3's tactic for nonlinear integer
  /// arithmetic (nlsat) on a fresh solver when it says unknown; with `tactic_first`, for
  /// a nonlinear problem, the other way round (the core can spend many times its budget
  /// on a nonlinear membership problem without looking at its limits).
  SatResult run(const std::vector<Formula>& extra, unsigned timeout, z3::model* out,
                bool tactic_first = false) {
    auto t0 = std::chrono::steady_clock::now();
    z3::check_result r = z3::unknown;
    try {
      // The budget is Z3's resource count (about 2,000 units per ms on the machine of
      // docs/prover.md), so that an answer does not depend on the machine's load; the
      // wall-clock limit, twice the budget, stops checks whose work Z3 does not count
      // (some nonlinear ones) and checks on a machine far slower than that one.
      auto limits = [](unsigned ms, bool wall_clock) {
        z3::params p(ctx_ref());
        const uint64_t units = static_cast<uint64_t>(ms) * kRlimitPerMs;
        p.set("rlimit", ms && units < 4294967295u ? static_cast<unsigned>(units) : 0u);
        if (!wall_clock) return p;
        const uint64_t wall = static_cast<uint64_t>(ms) * 2;
        p.set("timeout", ms && wall < 4294967295u ? static_cast<unsigned>(wall) : 4294967295u);
        return p;
      };
      auto incremental = [&] {
        if (!base) {
          base.emplace(ctx_ref(), z3::solver::simple());
          for (const Formula& f : facts)
            base->add(formula(f));
        }
        base->set(limits(timeout, true));
        base->push();
        for (const Formula& f : extra)
          base->add(formula(f));
        z3::check_result c = base->check();
        if (c == z3::sat && out) *out = base->get_model();
        base->pop();
        return c;
      };
      // A combined solver used once, without push: it runs the tactic for the problem's
      // logic. Its budget is the resource limit alone: Z3 4.8.12's timers deadlock when
      // nested (`try_for`, and this solver's own `timeout` with its tactic's), seen in CI.
      auto tactic = [&](unsigned ms) {
        z3::solver t(ctx_ref());
        t.set(limits(ms, false));
        for (const Formula& f : facts)
          t.add(formula(f));
        for (const Formula& f : extra)
          t.add(formula(f));
        z3::check_result c = t.check();
        if (c == z3::sat && out) *out = t.get_model();
        return c;
      };
      int deg = facts_degree();
      for (const Formula& f : extra)
        deg = std::max(deg, degree(f));
      if (tactic_first && deg >= kTacticDegree) {
        r = tactic(timeout ? std::max(1u, timeout / 5) : 0u);
        if (r == z3::unknown) r = incremental();
      } else {
        r = incremental();
        if (r == z3::unknown) r = tactic(timeout);
      }
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

namespace {

/// The first of `models` (each satisfies the facts) at which every formula of `extra`
/// holds, names the model lacks taking 0.
std::optional<Env> satisfying(const std::vector<Env>& models, const std::vector<Formula>& extra) {
  std::set<std::string> names;
  for (const Formula& f : extra)
    for (const std::string& v : f.free_vars())
      names.insert(v);
  for (const Env& m : models) {
    Env env = m;
    for (const std::string& v : names)
      env.emplace(v, 0);
    if (all_hold(extra, env)) return env;
  }
  return std::nullopt;
}

} // namespace

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
  if (impl_->by_lower_bounds(goal)) {
    ++impl_->stats.bounds;
    impl_->cache.emplace(key, true);
    return true;
  }
  const bool by_sample = impl_->refuted_by_sample(goal);
  if (by_sample || impl_->refuted_by_search(goal)) {
    if (!by_sample) ++impl_->stats.searched;
    ++impl_->stats.refuted;
    impl_->cache.emplace(key, false);
    return false;
  }
  z3::model m(impl_->ctx_ref());
  SatResult r = impl_->run({Formula::negate(goal)}, impl_->timeout_ms, &m);
  if (r == SatResult::Sat) {
    std::vector<std::string> vars = impl_->fact_vars();
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
  for (const Formula& f : extra) {
    if (f.free_vars().empty())
      if (auto v = f.eval({})) {
        if (!*v) return answer(SatResult::Unsat, {});
        continue;
      }
    if (!impl_->by_lower_bounds(f)) rest.push_back(f);
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
    for (const std::vector<Env>* models :
         std::initializer_list<const std::vector<Env>*>{&impl_->samples, &impl_->search_models()})
      if (satisfying(*models, rest)) {
        ++impl_->stats.sat_by_model;
        return answer(SatResult::Sat, {});
      }
  for (const Formula& f : rest)
    if (auto c = complement(f); c && impl_->by_lower_bounds(*c)) {
      ++impl_->stats.unsat_by_bounds;
      return answer(SatResult::Unsat, {});
    }
  z3::model m(impl_->ctx_ref());
  SatResult r = impl_->run(rest, timeout_ms, &m, true);
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
