// Facts at a point of a FUNMEM definition and the failure judgement (see point_facts.h).
#include "analysis/point_facts.h"

#include "analysis/fact_bounds.h"

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
    const FactBounds bounds(*facts_);
    if (bounds.implies(goal)) return it->second = true;
    for (const Formula& g : detail::lowered(goal))
      if (bounds.implies(g)) return it->second = true;
    // The goal is false wherever the facts hold.
    if (bounds.implies(Formula::negate(goal))) return it->second = false;
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
  // A nonlinear goal the lower-bound decision shows is not asked of Z3; nor is a goal
  // false at a model of the facts with small or large values: Z3 rarely refutes a
  // nonlinear one within a budget, and spends it (and more) trying, and each question
  // builds a solver.
  if (degree(goal) > 1) {
    SolverStats stats;
    QuickDecider quick(relevant, stats);
    if (quick.implied_by_bounds(goal)) return it->second = true;
    for (const Formula& g : detail::lowered(goal))
      if (quick.implied_by_bounds(g)) return it->second = true;
  }
  if (FactBounds(relevant).refuted_at_large_values(goal)) return it->second = false;
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

namespace {

std::string at_text(Pos p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

/// Whether an annotation on block `z` stays inside its first `size` elements (or its
/// array is empty), with the facts where it is bound.
bool ann_inside(const std::optional<Type>& t, const std::string& z, const Poly& size,
                PointFacts& facts) {
  if (!t || !t->ann || t->ann->mem.s != z) return true;
  try {
    auto ext =
        lmad_extent(sym_lmad(t->ann->lmad), [&](const Formula& f) { return facts.proves(f); });
    if (!ext) return false;
    // Each end alone first (small questions the solver's bounds often decide), then
    // with the array's emptiness as the way out.
    auto end = [&](const Formula& f) {
      if (facts.proves(f)) return true;
      std::vector<Formula> either = ext->empty;
      either.push_back(f);
      return facts.proves(Formula::disj(either));
    };
    return end(ge(ext->lo, Poly(0))) && end(le(ext->hi, size - Poly(1)));
  } catch (const Untranslatable&) {
    return false;
  } catch (const SymbolicOverflow&) {
    return false;
  }
}

} // namespace

/// Whether every array of `b` annotated `@z` stays inside the block's first `size`
/// elements; `why` names the first one not shown to.
bool arrays_inside_block(Body& b, const std::string& z, const Poly& size, PointFacts facts,
                         std::string& why) {
  for (Stmt& s : b.stmts) {
    if (const auto* l = std::get_if<SLet>(&s.node)) {
      std::vector<const Binding*> bs;
      for (const Binding& p : l->pats)
        bs.push_back(&p);
      if (const auto* lp = std::get_if<ELoop>(&l->exp.node))
        for (const Binding& p : lp->params)
          bs.push_back(&p);
      for (const Binding* p : bs)
        if (!ann_inside(p->type, z, size, facts)) {
          why = "'" + p->name.s + "' (" + at_text(s.pos) + ") is not shown inside the block's " +
                size.to_string() + " elements";
          return false;
        }
    }
    bool ok = true;
    each_body_with(s, facts, [&](Body& inner, const PointFacts& in) {
      ok = ok && arrays_inside_block(inner, z, size, in, why);
    });
    if (!ok) return false;
    facts.after(s);
  }
  return true;
}

} // namespace funmem
