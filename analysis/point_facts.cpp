// Facts at a point of a FUNMEM definition and the failure judgement (see point_facts.h).
#include "analysis/point_facts.h"

#include "analysis/quick_decide.h"
#include "ir/convert.h"
#include "ir/names.h"
#include "ir/overloaded.h"
#include "ir/scalar_types.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace funmem {

namespace {

/// The budget per question (solver.h: counted work, about this many milliseconds). The
/// questions are small; one that is not proved within it is answered "may fail".
constexpr unsigned kBudgetMs = 50;
/// The most elements an input array may have (interp/data.cpp refuses larger ones).
constexpr int64_t kMaxInputElements = int64_t{1} << 28;
/// The most elements a block may have: 16 bytes each within --max-memory's i64 bytes.
constexpr int64_t kMaxBlockElements = int64_t{1} << 59;

} // namespace

PointFacts::PointFacts(const Def& d) {
  for (const Binding& p : d.params) {
    bind(p);
    if (!p.type || p.type->kind != Type::Kind::Array || p.type->dims.empty()) continue;
    for (const SExpP& dim : p.type->dims) // the inputs are checked against them
      nonnegative(*dim);
    try {
      std::optional<Poly> elems = Poly(1);
      for (const SExpP& dim : p.type->dims) {
        auto pd = to_poly(*dim);
        if (!pd) elems.reset();
        if (elems) elems = *elems * *pd;
      }
      if (elems) add(le(*elems, Poly(kMaxInputElements)));
    } catch (const SymbolicOverflow&) {
    }
  }
}

std::optional<ScalarType> PointFacts::scalar_type(const SExp& e) const {
  try {
    return scalar_type_of(e, [&](const std::string& v) {
      auto t = type_of(v);
      if (!t || t->kind != Type::Kind::Scalar) throw std::logic_error("not a scalar: " + v);
      return t->elem;
    });
  } catch (const std::logic_error&) {
    return std::nullopt;
  }
}

std::optional<PointFacts::NameType> PointFacts::type_of(const std::string& n) const {
  auto it = types_.find(n);
  if (it == types_.end()) return std::nullopt;
  return it->second;
}

void PointFacts::forget(const std::string& n) {
  types_.erase(n);
  if (!mentioned_->count(n)) return;
  auto facts = std::make_shared<std::vector<Formula>>();
  auto names = std::make_shared<std::set<std::string>>();
  for (const Formula& f : *facts_) {
    auto fv = f.free_vars();
    if (std::find(fv.begin(), fv.end(), n) != fv.end()) continue;
    facts->push_back(f);
    names->insert(fv.begin(), fv.end());
  }
  facts_ = std::move(facts);
  mentioned_ = std::move(names);
  answers_.reset();
}

/// Keeps a fact only when every name in it is an integer in scope (a float fact read
/// over the integers can be unsatisfiable, and then it would prove anything).
void PointFacts::add(const std::optional<Formula>& f) {
  if (!f) return;
  const auto fv = f->free_vars();
  for (const std::string& v : fv) {
    auto t = type_of(v);
    if (!t || t->kind != Type::Kind::Scalar || !is_integer(t->elem)) return;
  }
  auto facts = std::make_shared<std::vector<Formula>>(*facts_);
  facts->push_back(*f);
  auto names = std::make_shared<std::set<std::string>>(*mentioned_);
  names->insert(fv.begin(), fv.end());
  facts_ = std::move(facts);
  mentioned_ = std::move(names);
  answers_.reset();
}

void PointFacts::bind(const Binding& b) {
  forget(b.name.s);
  if (b.type) types_[b.name.s] = NameType{b.type->kind, b.type->elem};
}

void PointFacts::nonnegative(const SExp& e) {
  try {
    if (auto p = to_poly(e)) add(ge(*p, Poly(0)));
  } catch (const SymbolicOverflow&) {
  }
}

void PointFacts::after(const Stmt& s) {
  if (const auto* a = std::get_if<SAssume>(&s.node)) {
    std::string err;
    try {
      add(formula_of(*a->cond, &err));
    } catch (const SymbolicOverflow&) {
    }
    return;
  }
  const SLet& l = std::get<SLet>(s.node);
  // A definition's fact is taken before its name is rebound (`let k = k + 1`).
  std::optional<Formula> def;
  std::optional<ScalarType> inferred;
  if (const auto* e = std::get_if<EScalar>(&l.exp.node); e && l.pats.size() == 1) {
    inferred = scalar_type(*e->e);
    try {
      std::set<std::string> vars;
      sexp_vars(*e->e, vars);
      if (!vars.count(l.pats[0].name.s))
        if (auto p = to_poly(*e->e)) def = eq(Poly::var(l.pats[0].name.s), *p);
    } catch (const SymbolicOverflow&) {
    }
  } else if (const auto* x = std::get_if<EIndex>(&l.exp.node); x && l.pats.size() == 1) {
    if (auto t = type_of(x->arr.s); t && t->kind == Type::Kind::Array) inferred = t->elem;
  }
  for (const Binding& p : l.pats) {
    Binding b = p;
    if (!b.type && inferred && l.pats.size() == 1) {
      Type t;
      t.elem = *inferred;
      b.type = t;
    }
    bind(b);
  }
  const auto& t0 = l.pats.size() == 1 ? l.pats[0].type : std::nullopt;
  if (def && (!t0 || t0->kind == Type::Kind::Scalar)) add(def);
  // Sizes the statement checked: an array's dimensions are not facts by themselves (a
  // kernel of no threads does not check its rows' length).
  std::visit(Overloaded{[&](const EIota& x) { nonnegative(*x.n); },
                        [&](const EReplicate& x) { nonnegative(*x.n); },
                        [&](const EKernel& x) { nonnegative(*x.bound); }, [](const auto&) {}},
             l.exp.node);
  // A completed allocation's size was computed and fits in memory.
  if (const auto* a = std::get_if<EAlloc>(&l.exp.node)) try {
      if (auto p = to_poly(*a->size))
        add(Formula::conj({ge(*p, Poly(0)), le(*p, Poly(kMaxBlockElements))}));
    } catch (const SymbolicOverflow&) {
    }
}

void PointFacts::enter_range(const Name& iter, const SExpP& bound) {
  Binding b{iter, Type{}};
  bind(b);
  if (!bound) return;
  try {
    if (auto p = to_poly(*bound)) {
      add(ge(Poly::var(iter.s), Poly(0)));
      add(lt(Poly::var(iter.s), *p));
    }
  } catch (const SymbolicOverflow&) {
  }
}

namespace {

__extension__ typedef __int128 Wide; // NOLINT(modernize-use-using): __extension__ needs it

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
    if (key.size() + 0 == 0 || key == mono) continue;
    // key divides mono: every atom of key with at most its power in mono.
    Monomial rest;
    bool divides = true;
    size_t j = 0;
    for (const auto& [atom, power] : mono) {
      int p = power;
      if (j < key.size() && !(key[j].first < atom) && !(atom < key[j].first)) {
        p -= key[j].second;
        ++j;
      }
      if (p < 0) divides = false;
      if (p > 0) rest.emplace_back(atom, p);
    }
    if (!divides || j != key.size()) continue;
    out = intersect(out, times(bound, monomial_interval(rest, b, depth + 1)));
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

/// Whether the monomials' bounds decide `goal` true (false: not decided).
bool holds_by_intervals(const Formula& goal, const MonoBounds& b) {
  switch (goal.kind) {
  case Formula::Kind::True:
    return true;
  case Formula::Kind::And:
    for (const Formula& k : goal.kids)
      if (!holds_by_intervals(k, b)) return false;
    return true;
  case Formula::Kind::Or:
    for (const Formula& k : goal.kids)
      if (holds_by_intervals(k, b)) return true;
    return false;
  case Formula::Kind::Cmp: {
    Interval d = interval_of(goal.lhs - goal.rhs, b);
    switch (goal.rel) {
    case Rel::Le:
      return d.hi <= 0;
    case Rel::Lt:
      return d.hi < 0;
    case Rel::Ge:
      return d.lo >= 0;
    case Rel::Gt:
      return d.lo > 0;
    default:
      return false;
    }
  }
  default:
    return false;
  }
}

/// Whether `goal` is false at an assignment where every fact holds, among a fixed set
/// built from large and small values: each name takes 0, 1, 2, its upper bound from the
/// facts (when one is known), half of it, 2^20 or 2^31, names defined by an equation
/// `v == p` of the facts are computed from the others.
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
    std::vector<int64_t> vals = {0, 1, 2, int64_t{1} << 20, int64_t{1} << 31};
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
    if (!ok || !all_hold(facts, env)) continue;
    if (auto g = goal.eval(env); g && !*g) return true;
  }
  return false;
}

int degree(const Formula& f) {
  int d = f.kind == Formula::Kind::Cmp ? (f.lhs - f.rhs).degree() : 0;
  for (const Formula& k : f.kids)
    d = std::max(d, degree(k));
  return d;
}

} // namespace

bool PointFacts::proves(const Formula& goal) {
  if (!answers_) answers_ = std::make_shared<std::map<std::string, bool>>();
  auto [it, fresh] = answers_->try_emplace(goal.to_string(), false);
  if (!fresh) return it->second;
  // Interval arithmetic over the facts' bounds of monomials first: the overflow and
  // size questions are mostly products of bounded names, which it decides at once.
  try {
    MonoBounds b;
    for (const Formula& f : *facts_)
      note_bound(f, b);
    if (holds_by_intervals(goal, b)) return it->second = true;
  } catch (const SymbolicOverflow&) {
  }
  // Only the facts connected to the goal's names (through names they share): fewer
  // facts make smaller questions, and the same ones at many points, which the solvers'
  // shared cache answers once.
  std::set<std::string> names;
  for (const std::string& v : goal.free_vars())
    names.insert(v);
  const std::vector<Formula>& all = *facts_;
  std::vector<std::vector<std::string>> vars;
  for (const Formula& f : all)
    vars.push_back(f.free_vars());
  std::vector<bool> taken(all.size(), false);
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t k = 0; k < all.size(); ++k) {
      if (taken[k]) continue;
      bool touches = vars[k].empty();
      for (const std::string& v : vars[k])
        touches = touches || names.count(v);
      if (!touches) continue;
      taken[k] = grew = true;
      names.insert(vars[k].begin(), vars[k].end());
    }
  }
  std::vector<Formula> relevant;
  for (size_t k = 0; k < all.size(); ++k)
    if (taken[k]) relevant.push_back(all[k]);
  // A nonlinear goal that is false at a model of the facts with large values is not
  // asked of Z3: Z3 rarely refutes one within a budget, and spends it (and more) trying.
  if (degree(goal) > 1) {
    SolverStats stats;
    if (QuickDecider(relevant, stats).implied_by_bounds(goal)) return it->second = true;
    MonoBounds b;
    for (const Formula& f : relevant)
      note_bound(f, b);
    if (refuted_by_large_models(goal, relevant, b)) return it->second = false;
  }
  Solver solver(std::move(relevant), kBudgetMs);
  return it->second = solver.proves(goal);
}

bool PointFacts::safe(const SExp& e) {
  auto t = scalar_type(e);
  if (!t) return false;
  const bool integer = is_integer(*t);
  auto poly_of = [](const SExp& x) -> std::optional<Poly> {
    try {
      return to_poly(x);
    } catch (const SymbolicOverflow&) {
      return std::nullopt;
    }
  };
  // Inside +-2^62 for i64: a sufficient bound the solver decides without coefficients
  // beyond 64 bits (as short-circuiting's judgement).
  auto within = [&](const SExp& x) {
    auto p = poly_of(x);
    if (!p) return false;
    // A name no fact mentions can be any value: the solver would spend its budget
    // failing to bound it.
    for (const std::string& v : p->free_vars())
      if (!mentioned_->count(v)) return false;
    const bool i64 = *t == ScalarType::I64;
    const int64_t lo = i64 ? -(int64_t{1} << 62) : INT32_MIN;
    const int64_t hi = i64 ? int64_t{1} << 62 : INT32_MAX;
    return proves(Formula::conj({ge(*p, Poly(lo)), le(*p, Poly(hi))}));
  };
  return std::visit(
      Overloaded{[](const Lit&) { return true; },
                 [&](const SVar& v) { return type_of(v.name).has_value(); },
                 [&](const SUnary& u) {
                   if (!safe(*u.a)) return false;
                   return u.op != UnOp::Neg || !integer || within(e);
                 },
                 [&](const SBinary& b) {
                   if (!safe(*b.a) || !safe(*b.b)) return false;
                   if (!integer) return true;
                   switch (b.op) {
                   case BinOp::Add:
                   case BinOp::Sub:
                   case BinOp::Mul:
                     return within(e);
                   case BinOp::Div:
                   case BinOp::Mod: {
                     auto pa = poly_of(*b.a), pb = poly_of(*b.b);
                     if (!pa || !pb) return false;
                     const int64_t least = *t == ScalarType::I64 ? INT64_MIN : INT32_MIN;
                     return proves(ge(*pb, Poly(1))) ||
                            (proves(le(*pb, Poly(-1))) && proves(gt(*pa, Poly(least))));
                   }
                   default:
                     return true;
                   }
                 },
                 [&](const SCall& c) {
                   for (const SExpP& a : c.args)
                     if (!safe(*a)) return false;
                   if (c.fn == Fn::ToI32 || c.fn == Fn::ToI64) return false;
                   return c.fn != Fn::Abs || !integer || within(e);
                 }},
      e.node);
}

bool PointFacts::safe_size(const SExp& e) {
  if (!safe(e)) return false;
  try {
    auto p = to_poly(e);
    return p && proves(ge(*p, Poly(0)));
  } catch (const SymbolicOverflow&) {
    return false;
  }
}

bool PointFacts::may_fail(const Stmt& s) {
  const auto* l = std::get_if<SLet>(&s.node);
  if (!l) return true; // an assume or an assert
  for (const Binding& p : l->pats)
    if (p.type && p.type->kind == Type::Kind::Array) return true; // its layout is evaluated
  if (const auto* x = std::get_if<EScalar>(&l->exp.node)) return !safe(*x->e);
  if (const auto* x = std::get_if<EAlloc>(&l->exp.node)) return !safe_size(*x->size);
  // Reads too: a read inside its array may still leave the array's block.
  return true;
}

} // namespace funmem
