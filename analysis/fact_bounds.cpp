// Decisions from the facts' bounds alone, without Z3 (see fact_bounds.h).
#include "analysis/fact_bounds.h"

#include <algorithm>
#include <map>
#include <set>

namespace funmem {

namespace {

using detail::Wide;

/// A closed interval of integers; the ends saturate at +-2^100 (unbounded).
struct Interval {
  static constexpr Wide kInf = static_cast<Wide>(1) << 100;
  Wide lo = -kInf, hi = kInf;
};

Wide clamp(Wide v) {
  return std::max(-Interval::kInf, std::min(Interval::kInf, v));
}

Interval times(const Interval& a, const Interval& b) {
  // Ends within 2^100: products within 2^200 do not fit; clamp the factors' products
  // through division-free checks (an end at the bound makes the product unbounded).
  auto mul = [](Wide x, Wide y) -> Wide {
    if (x == 0 || y == 0) return 0;
    const Wide limit = Interval::kInf;
    const Wide ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
    if (ax >= limit || ay >= limit || ax > limit / ay) return (x < 0) != (y < 0) ? -limit : limit;
    return x * y;
  };
  Wide c[4] = {mul(a.lo, b.lo), mul(a.lo, b.hi), mul(a.hi, b.lo), mul(a.hi, b.hi)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

/// Bounds of monomials that facts of the form `c*M + k REL 0` give.
using MonoBounds = std::map<Monomial, Interval>;

void note_bound(const Formula& f, MonoBounds& out) {
  if (f.kind == Formula::Kind::And) {
    for (const Formula& k : f.kids)
      note_bound(k, out);
    return;
  }
  if (f.kind != Formula::Kind::Cmp) return;
  Poly d = f.lhs - f.rhs; // d REL 0
  const Monomial* m = nullptr;
  Wide a = 0, k = 0;
  for (const auto& [mono, c] : d.terms()) {
    if (mono.empty()) {
      k = c;
    } else if (!m) {
      m = &mono;
      a = c;
    } else {
      return; // two monomials
    }
  }
  if (!m) return;
  // a*M + k REL 0: M REL' -k / a, rounded inwards.
  auto floor_div = [](Wide x, Wide y) {
    Wide q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
  };
  auto ceil_div = [&](Wide x, Wide y) { return -floor_div(-x, y); };
  Interval& b = out[*m];
  auto upper = [&](Wide v) { b.hi = std::min(b.hi, clamp(v)); }; // a*M <= v
  auto lower = [&](Wide v) { b.lo = std::max(b.lo, clamp(v)); }; // a*M >= v
  auto le = [&](Wide v) { a > 0 ? upper(floor_div(v, a)) : lower(ceil_div(v, a)); };
  auto ge = [&](Wide v) { a > 0 ? lower(ceil_div(v, a)) : upper(floor_div(v, a)); };
  switch (f.rel) {
  case Rel::Le:
    le(-k);
    break;
  case Rel::Lt:
    le(-k - 1);
    break;
  case Rel::Ge:
    ge(-k);
    break;
  case Rel::Gt:
    ge(-k + 1);
    break;
  case Rel::Eq:
    le(-k);
    ge(-k);
    break;
  case Rel::Ne:
    break;
  }
}

Interval interval_of(const Poly& p, const MonoBounds& b, int depth = 0);

Interval intersect(const Interval& x, const Interval& y) {
  return {std::max(x.lo, y.lo), std::min(x.hi, y.hi)};
}

/// An atom's bounds: the facts' on it, and for max / min those of the arguments.
Interval atom_interval(const AtomRef& atom, const MonoBounds& b, int depth) {
  Monomial single;
  single.emplace_back(atom, 1);
  auto it = b.find(single);
  Interval out = it == b.end() ? Interval{} : it->second;
  if ((atom->kind == AtomKind::Max || atom->kind == AtomKind::Min) && depth < 4 &&
      atom->args.size() == 2) {
    Interval x = interval_of(atom->args[0], b, depth + 1);
    Interval y = interval_of(atom->args[1], b, depth + 1);
    Interval m = atom->kind == AtomKind::Max ? Interval{std::max(x.lo, y.lo), std::max(x.hi, y.hi)}
                                             : Interval{std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
    out = intersect(out, m);
  }
  return out;
}

/// `big / small` when `small` divides `big` (each atom of small at most its power in big).
std::optional<Monomial> quotient(const Monomial& big, const Monomial& small) {
  Monomial rest;
  size_t j = 0;
  for (const auto& [atom, power] : big) {
    int p = power;
    if (j < small.size() && small[j].first == atom) {
      p -= small[j].second;
      ++j;
    }
    if (p < 0) return std::nullopt;
    if (p > 0) rest.emplace_back(atom, p);
  }
  if (j != small.size()) return std::nullopt;
  return rest;
}

/// A monomial's bounds: the facts' on it, the product of its atoms' bounds, and the
/// product of a bounded factor's bounds with the rest's.
Interval monomial_interval(const Monomial& mono, const MonoBounds& b, int depth) {
  Interval out{1, 1};
  for (const auto& [atom, power] : mono) {
    const Interval f = atom_interval(atom, b, depth);
    for (int k = 0; k < power; ++k)
      out = times(out, f);
  }
  if (auto it = b.find(mono); it != b.end()) out = intersect(out, it->second);
  if (depth >= 2) return out;
  // r * max(x, y) == max(r*x, r*y) where r >= 0 (and min alike).
  for (size_t k = 0; k < mono.size(); ++k) {
    const auto& [atom, power] = mono[k];
    if (power != 1 || atom->args.size() != 2 ||
        (atom->kind != AtomKind::Max && atom->kind != AtomKind::Min))
      continue;
    Monomial rest;
    for (size_t j = 0; j < mono.size(); ++j)
      if (j != k) rest.push_back(mono[j]);
    const Poly r = Poly::monomial(rest, 1);
    if (interval_of(r, b, depth + 1).lo < 0) continue;
    Interval x = interval_of(r * atom->args[0], b, depth + 1);
    Interval y = interval_of(r * atom->args[1], b, depth + 1);
    out = intersect(out, atom->kind == AtomKind::Max
                             ? Interval{std::max(x.lo, y.lo), std::max(x.hi, y.hi)}
                             : Interval{std::min(x.lo, y.lo), std::min(x.hi, y.hi)});
  }
  for (const auto& [key, bound] : b) {
    if (key.empty() || key == mono) continue;
    // key * rest == mono: mono within bound * rest.
    if (auto rest = quotient(mono, key)) {
      out = intersect(out, times(bound, monomial_interval(*rest, b, depth + 1)));
      continue;
    }
    // mono * rest == key <= h with h >= 0 and rest >= r >= 1: mono <= h / r (a negative
    // mono is below 0 <= h / r).
    if (bound.hi < 0 || bound.hi >= Interval::kInf) continue;
    if (auto rest = quotient(key, mono)) {
      const Interval r = monomial_interval(*rest, b, depth + 1);
      if (r.lo >= 1) out.hi = std::min(out.hi, bound.hi / r.lo);
    }
  }
  return out;
}

Interval interval_of(const Poly& p, const MonoBounds& b, int depth) {
  Interval sum{0, 0};
  for (const auto& [mono, c] : p.terms()) {
    Interval t = mono.empty() ? Interval{1, 1} : monomial_interval(mono, b, depth);
    t = times(t, Interval{c, c});
    sum.lo = clamp(sum.lo + t.lo);
    sum.hi = clamp(sum.hi + t.hi);
  }
  return sum;
}

/// Linear bounds of names that facts give: `v <= p` and `v >= p` for a fact linear in v
/// with coefficient +-1 whose other side p is not constant (constants are in MonoBounds).
struct LinearBounds {
  std::map<std::string, std::vector<Poly>> lower, upper;
};

/// `d == a * v + rest` with a and rest free of v; nullopt when d is not linear in v (a
/// power above 1, or v inside max / min / abs / division).
std::optional<std::pair<Poly, Poly>> split_linear(const Poly& d, const std::string& v) {
  Poly a, rest;
  for (const auto& [mono, c] : d.terms()) {
    Monomial other;
    int power_of_v = 0;
    for (const auto& [atom, power] : mono) {
      if (atom->kind == AtomKind::Var && atom->name == v) {
        power_of_v = power;
        continue;
      }
      for (const Poly& arg : atom->args)
        for (const std::string& x : arg.free_vars())
          if (x == v) return std::nullopt;
      other.emplace_back(atom, power);
    }
    if (power_of_v > 1) return std::nullopt;
    (power_of_v ? a : rest) = (power_of_v ? a : rest) + Poly::monomial(other, c);
  }
  return std::make_pair(a, rest);
}

void note_linear(const Formula& f, LinearBounds& out) {
  if (f.kind == Formula::Kind::And) {
    for (const Formula& k : f.kids)
      note_linear(k, out);
    return;
  }
  if (f.kind != Formula::Kind::Cmp || f.rel == Rel::Ne) return;
  const Poly d = f.lhs - f.rhs; // d REL 0
  for (const std::string& v : d.free_vars()) {
    auto split = split_linear(d, v);
    if (!split) continue;
    auto a = split->first.constant();
    if (!a || (*a != 1 && *a != -1) || split->second.is_constant()) continue;
    // v + rest REL 0 (a == 1) or -v + rest REL 0 (a == -1): v REL' bound.
    const Poly bound = *a == 1 ? -split->second : split->second;
    const Rel rel = *a == 1 ? f.rel : mirror(f.rel);
    auto& lows = out.lower[v];
    auto& highs = out.upper[v];
    if (rel == Rel::Le || rel == Rel::Eq) highs.push_back(bound);
    if (rel == Rel::Lt) highs.push_back(bound - Poly(1));
    if (rel == Rel::Ge || rel == Rel::Eq) lows.push_back(bound);
    if (rel == Rel::Gt) lows.push_back(bound + Poly(1));
  }
}

/// Whether d >= k at every point of the facts: by intervals, or by putting a name's
/// linear bound in its place (d == a*v + r with a >= 0 is at least a*low + r; with
/// a <= 0, a*high + r), up to three names deep. `budget` counts the substitutions tried.
bool at_least(const Poly& d, Wide k, const MonoBounds& b, const LinearBounds& lin, int depth,
              int& budget) {
  if (interval_of(d, b).lo >= k) return true;
  if (depth >= 3) return false;
  for (const std::string& v : d.free_vars()) {
    auto lo_it = lin.lower.find(v);
    auto hi_it = lin.upper.find(v);
    if (lo_it == lin.lower.end() && hi_it == lin.upper.end()) continue;
    auto split = split_linear(d, v);
    if (!split) continue;
    const Interval a = interval_of(split->first, b);
    const std::vector<Poly>* bounds = nullptr;
    if (a.lo >= 0 && lo_it != lin.lower.end()) bounds = &lo_it->second;
    if (a.hi <= 0 && hi_it != lin.upper.end()) bounds = &hi_it->second;
    if (!bounds) continue;
    for (const Poly& bound : *bounds) {
      if (--budget < 0) return false;
      if (at_least(d.substitute({{v, bound}}), k, b, lin, depth + 1, budget)) return true;
    }
  }
  return false;
}

/// Whether the facts' bounds decide `goal` true (false: not decided).
bool holds_by_intervals(const Formula& goal, const MonoBounds& b, const LinearBounds& lin) {
  switch (goal.kind) {
  case Formula::Kind::True:
    return true;
  case Formula::Kind::And:
    for (const Formula& k : goal.kids)
      if (!holds_by_intervals(k, b, lin)) return false;
    return true;
  case Formula::Kind::Or:
    for (const Formula& k : goal.kids)
      if (holds_by_intervals(k, b, lin)) return true;
    return false;
  case Formula::Kind::Cmp: {
    const Poly d = goal.lhs - goal.rhs;
    int budget = 64;
    switch (goal.rel) {
    case Rel::Le:
      return at_least(-d, 0, b, lin, 0, budget);
    case Rel::Lt:
      return at_least(-d, 1, b, lin, 0, budget);
    case Rel::Ge:
      return at_least(d, 0, b, lin, 0, budget);
    case Rel::Gt:
      return at_least(d, 1, b, lin, 0, budget);
    case Rel::Eq:
      return at_least(d, 0, b, lin, 0, budget) && at_least(-d, 0, b, lin, 0, budget);
    default:
      return false;
    }
  }
  default:
    return false;
  }
}

} // namespace

namespace detail {

std::optional<Wide> wide_eval(const Poly& p, const Env& env, int depth) {
  const Wide limit = static_cast<Wide>(1) << 120;
  auto mul = [&](Wide x, Wide y) -> std::optional<Wide> {
    if (x == 0 || y == 0) return Wide{0};
    const Wide ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
    if (ax > limit / ay) return std::nullopt;
    return x * y;
  };
  Wide sum = 0;
  for (const auto& [mono, c] : p.terms()) {
    std::optional<Wide> t = Wide{c};
    for (const auto& [atom, power] : mono) {
      std::optional<Wide> v;
      if (atom->kind == AtomKind::Var) {
        if (auto it = env.find(atom->name); it != env.end()) v = it->second;
      } else if (depth < 4 && (atom->kind == AtomKind::Max || atom->kind == AtomKind::Min) &&
                 atom->args.size() == 2) {
        auto x = wide_eval(atom->args[0], env, depth + 1);
        auto y = wide_eval(atom->args[1], env, depth + 1);
        if (x && y) v = atom->kind == AtomKind::Max ? std::max(*x, *y) : std::min(*x, *y);
      } else if (depth < 4 && atom->kind == AtomKind::Abs && atom->args.size() == 1) {
        if (auto x = wide_eval(atom->args[0], env, depth + 1)) v = *x < 0 ? -*x : *x;
      } else if (depth < 4 && (atom->kind == AtomKind::Div || atom->kind == AtomKind::Mod) &&
                 atom->args.size() == 2) {
        // Truncating, as C; no value for a zero divisor.
        auto x = wide_eval(atom->args[0], env, depth + 1);
        auto y = wide_eval(atom->args[1], env, depth + 1);
        if (x && y && *y != 0) v = atom->kind == AtomKind::Div ? *x / *y : *x % *y;
      }
      if (!v) return std::nullopt;
      for (int k = 0; k < power && t; ++k)
        t = mul(*t, *v);
      if (!t) return std::nullopt;
    }
    sum += *t;
    if (sum > limit || sum < -limit) return std::nullopt;
  }
  return sum;
}

/// A formula's truth in 128-bit arithmetic; nullopt when a term cannot be evaluated.
std::optional<bool> wide_holds(const Formula& f, const Env& env) {
  switch (f.kind) {
  case Formula::Kind::True:
    return true;
  case Formula::Kind::False:
    return false;
  case Formula::Kind::Not: {
    auto v = wide_holds(f.kids.at(0), env);
    if (!v) return std::nullopt;
    return !*v;
  }
  case Formula::Kind::And:
  case Formula::Kind::Or: {
    const bool is_and = f.kind == Formula::Kind::And;
    for (const Formula& k : f.kids) {
      auto v = wide_holds(k, env);
      if (!v) return std::nullopt;
      if (*v != is_and) return !is_and;
    }
    return is_and;
  }
  case Formula::Kind::Cmp: {
    auto l = wide_eval(f.lhs, env), r = wide_eval(f.rhs, env);
    if (!l || !r) return std::nullopt;
    switch (f.rel) {
    case Rel::Eq:
      return *l == *r;
    case Rel::Ne:
      return *l != *r;
    case Rel::Lt:
      return *l < *r;
    case Rel::Le:
      return *l <= *r;
    case Rel::Gt:
      return *l > *r;
    case Rel::Ge:
      return *l >= *r;
    }
  }
  }
  return std::nullopt;
}

} // namespace detail

namespace {

using detail::wide_holds;

/// Whether `goal` is false at an assignment where every fact holds, among a fixed set
/// built from large and small values (FactBounds::refuted_at_large_values).
bool refuted_by_large_models(const Formula& goal, const std::vector<Formula>& facts,
                             const MonoBounds& bounds) {
  std::map<std::string, Poly> defined;
  for (const Formula& f : facts)
    if (f.kind == Formula::Kind::Cmp && f.rel == Rel::Eq && f.lhs.degree() == 1 &&
        f.lhs.terms().size() == 1 && f.lhs.terms()[0].second == 1) {
      auto vs = f.lhs.free_vars();
      if (vs.size() == 1 && !defined.count(vs[0])) defined.emplace(vs[0], f.rhs);
    }
  std::set<std::string> all;
  for (const std::string& v : goal.free_vars())
    all.insert(v);
  for (const Formula& f : facts)
    for (const std::string& v : f.free_vars())
      all.insert(v);
  std::vector<std::string> free;
  std::vector<std::vector<int64_t>> values;
  for (const std::string& v : all) {
    if (defined.count(v)) continue;
    free.push_back(v);
    // Beyond 2^32 a square leaves 64 bits; negative values for names the facts leave free.
    std::vector<int64_t> vals = {0,
                                 1,
                                 2,
                                 int64_t{1} << 20,
                                 int64_t{1} << 31,
                                 (int64_t{1} << 32) + 3,
                                 -1,
                                 -(int64_t{1} << 32) - 3};
    if (auto it = bounds.find(Poly::var(v).terms()[0].first); it != bounds.end()) {
      const Wide hi = it->second.hi;
      if (hi < Interval::kInf && hi > 2) {
        vals.push_back(static_cast<int64_t>(std::min<Wide>(hi, INT64_MAX)));
        vals.push_back(static_cast<int64_t>(std::min<Wide>(hi / 2, INT64_MAX)));
      }
    }
    values.push_back(vals);
  }
  // A fixed walk through the combinations: every name at each value with the others at
  // the same index, then a deterministic mix (at most 256 assignments).
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (int round = 0; round < 256; ++round) {
    Env env;
    for (size_t k = 0; k < free.size(); ++k) {
      size_t pick;
      if (round < 8) {
        pick = static_cast<size_t>(round);
      } else {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        pick = static_cast<size_t>(state >> 33);
      }
      env[free[k]] = values[k][pick % values[k].size()];
    }
    bool ok = true;
    for (int pass = 0; pass < 4 && ok; ++pass)
      for (const auto& [v, p] : defined) {
        auto x = p.eval(env);
        if (x) env[v] = *x;
      }
    for (const auto& [v, p] : defined)
      ok = ok && env.count(v);
    for (size_t k = 0; k < facts.size() && ok; ++k) {
      auto v = wide_holds(facts[k], env);
      ok = v && *v;
    }
    if (!ok) continue;
    if (auto g = wide_holds(goal, env); g && !*g) return true;
  }
  return false;
}

} // namespace

namespace detail {

/// Stronger goals without max / min: `d >= 0` where d has a term `c * max(x, y)` with
/// c > 0 follows from d with that term replaced by `c * x` (or `c * y`), and a term
/// `c * min(x, y)` with c < 0 alike. Up to two such terms; for a disjunction, per disjunct.
std::vector<Formula> lowered_unchecked(const Formula& goal, int depth);

std::vector<Formula> lowered(const Formula& goal, int depth) {
  try { // coefficients beyond 64 bits: no stronger goals
    return lowered_unchecked(goal, depth);
  } catch (const SymbolicOverflow&) {
    return {};
  }
}

std::vector<Formula> lowered_unchecked(const Formula& goal, int depth) {
  std::vector<Formula> out;
  if (goal.kind == Formula::Kind::Or) {
    for (size_t k = 0; k < goal.kids.size(); ++k)
      for (const Formula& l : lowered_unchecked(goal.kids[k], depth))
        out.push_back(l);
    return out;
  }
  if (goal.kind != Formula::Kind::Cmp || depth >= 2) return out;
  Poly d;
  switch (goal.rel) {
  case Rel::Ge:
    d = goal.lhs - goal.rhs;
    break;
  case Rel::Gt:
    d = goal.lhs - goal.rhs - Poly(1);
    break;
  case Rel::Le:
    d = goal.rhs - goal.lhs;
    break;
  case Rel::Lt:
    d = goal.rhs - goal.lhs - Poly(1);
    break;
  default:
    return out;
  }
  for (const auto& [mono, c] : d.terms()) {
    if (mono.size() != 1 || mono[0].second != 1) continue;
    const AtomRef& atom = mono[0].first;
    const bool lowerable =
        (atom->kind == AtomKind::Max && c > 0) || (atom->kind == AtomKind::Min && c < 0);
    if (!lowerable || atom->args.size() != 2) continue;
    for (const Poly& arg : atom->args) {
      Poly e = d - Poly::monomial(mono, c) + Poly(c) * arg;
      Formula f = ge(e, Poly(0));
      out.push_back(f);
      for (const Formula& deeper : lowered_unchecked(f, depth + 1))
        out.push_back(deeper);
    }
    break;
  }
  return out;
}

} // namespace detail

struct FactBounds::Impl {
  std::vector<Formula> facts;
  MonoBounds mono;
  LinearBounds linear;
};

FactBounds::FactBounds(std::vector<Formula> facts) {
  auto impl = std::make_shared<Impl>();
  // Coefficients beyond 64 bits (SymbolicOverflow) leave a fact's bounds out.
  for (const Formula& f : facts) {
    try {
      note_bound(f, impl->mono);
    } catch (const SymbolicOverflow&) {
    }
    try {
      note_linear(f, impl->linear);
    } catch (const SymbolicOverflow&) {
    }
  }
  impl->facts = std::move(facts);
  impl_ = std::move(impl);
}

bool FactBounds::implies(const Formula& goal) const {
  try {
    return holds_by_intervals(goal, impl_->mono, impl_->linear);
  } catch (const SymbolicOverflow&) {
    return false;
  }
}

bool FactBounds::refuted_at_large_values(const Formula& goal) const {
  try {
    return refuted_by_large_models(goal, impl_->facts, impl_->mono);
  } catch (const SymbolicOverflow&) {
    return false;
  }
}

} // namespace funmem
