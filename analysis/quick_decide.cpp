// Decisions without Z3 (see quick_decide.h).
#include "analysis/quick_decide.h"

#include <algorithm>
#include <functional>
#include <set>

namespace funmem {

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

/// Whether `goal` evaluates to false at one of `models` (names they lack take 0).
bool false_at_one_of(const Formula& goal, const std::vector<Env>& models) {
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

std::vector<std::string> QuickDecider::fact_vars() const {
  std::set<std::string> vs;
  for (const Formula& f : facts_)
    for (const std::string& v : f.free_vars())
      vs.insert(v);
  return {vs.begin(), vs.end()};
}

/// The comparisons the facts are conjunctions of (disjunctions and negations are left
/// out: what is derived from the rest is still implied by the facts).
std::vector<const Formula*> QuickDecider::comparisons() const {
  std::vector<const Formula*> out, todo;
  for (const Formula& f : facts_)
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

/// A model of the facts by a small search: names defined by an equation of the
/// facts (`n == b*q + 1`) are computed, the others tried in 0..3 (at most 4^6
/// assignments). Cheaper than Z3 for the usual facts; nullopt when none is found.
std::optional<Env> QuickDecider::small_model() const {
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
  std::optional<Env> found;
  for_each_assignment(free, {0, 1, 2, 3}, [&](const Env& leaf) {
    Env env = leaf;
    // Definitions may use each other: evaluate until nothing changes.
    for (size_t round = 0; round <= defs.size(); ++round)
      for (const auto& [v, e] : defs)
        if (auto val = e.eval(env)) env[v] = *val;
    if (all_hold(facts_, env)) found = std::move(env);
    return !found;
  });
  return found;
}

/// Assignments of the facts' names that satisfy every fact, from a small search: the
/// names are generated through lower_definitions() (their new names >= 0 all taking
/// the same value from {0, 1, 2, 4, 9}, then every combination of 0..k for growing k;
/// at most 256 tried), names without a definition taking the values directly; each is
/// checked against the facts by evaluation. Computed once per solver.
const std::vector<Env>& QuickDecider::search_models() {
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
    if (all_hold(facts_, env)) search_models_->push_back(std::move(env));
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

/// The constant lower bounds the facts give single names (`b > 0`, `i >= 1`, `0 <= i`,
/// `n == 5`), as the substitution x -> x + lb(x).
const std::map<std::string, Poly>& QuickDecider::lower_bounds() {
  if (shift_) return *shift_;
  std::map<std::string, int64_t> lb;
  for (const Formula* f : comparisons())
    if (auto b = bound_of(*f)) {
      auto it = lb.find(b->first);
      if (it == lb.end() || it->second < b->second) lb[b->first] = b->second;
    }
  shift_.emplace();
  for (const auto& [x, c] : lb)
    (*shift_)[x] = Poly::var(x) + Poly(c);
  return *shift_;
}

/// The constant lower bound a comparison gives one name (`x >= c`, `x > c`, `c < x`,
/// `x == c`).
std::optional<std::pair<std::string, int64_t>> QuickDecider::bound_of(const Formula& f) {
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
const std::map<std::string, Poly>& QuickDecider::lower_definitions() {
  if (defs_) return *defs_;
  struct Cand { // NOLINT(bugprone-exception-escape): moving a Poly does not throw
    Poly rest;  // r + c
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

/// implied_by_bounds() under the substitution `sh` (names shifted by their lower
/// bounds). A disjunction none of whose disjuncts follows alone is split on a
/// disjunct whose complement bounds a name: `m <= 0 || P` holds when P does with
/// m >= 1 (at most two splits deep; names bounded by names are then not used).
bool QuickDecider::by_bounds(const Formula& goal, const std::map<std::string, Poly>& sh,
                             int splits) {
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
        ++stats_.split;
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
  ++stats_.definitions;
  return true;
}

/// p >= 0 because, with the names replaced by `sh` (names that are >= 0), no
/// coefficient is negative and every opaque atom is >= 0 (no_negative_term), perhaps
/// after opaque atoms of negative terms are replaced by upper bounds (above_bounds).
bool QuickDecider::nonnegative_under(const Poly& p, const std::map<std::string, Poly>& sh) {
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
  ++stats_.atom_bounds;
  return true;
}

/// q >= 0 when its names are, through upper bounds of opaque atoms: a term c*M*A with
/// c < 0, M >= 0 (no_negative_term) and A <= U is >= c*M*U, so q is >= the polynomial
/// with A replaced by U in that term, and that one >= 0 shows q >= 0. The bounds, for
/// a >= 0 and b >= 1: a / b <= a; a % b <= b - 1 and <= a; min(a, b) <= a and <= b
/// (always). Atoms of power 1 only; up to `depth` replacements, every choice tried.
bool QuickDecider::above_bounds(const Poly& q, int depth) {
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
bool QuickDecider::no_negative_term(const Poly& q) {
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

} // namespace funmem
