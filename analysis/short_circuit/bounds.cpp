// Short-circuiting: Bounds of the place, statements that may fail, positivity (see pass.h).
#include "analysis/short_circuit/pass.h"

namespace funmem::sc {

/// Whether a statement may end the run with an error: conservative (an assume, an
/// integer operation that may overflow or divide by zero, a read not shown inside its
/// array, a size not shown non-negative, anything not listed).
bool Pass::may_fail(const Stmt& s, Solver& solver, int depth) {
  const auto* l = std::get_if<SLet>(&s.node);
  if (!l || depth > 8) return true;
  auto size_may_fail = [&](const SExpP& e) {
    auto p = to_poly(*e);
    return sexp_may_fail(*e) || !p || !solver.proves(ge(p->substitute(defs_), Poly(0)));
  };
  return std::visit(
      Overloaded{[&](const EScalar& x) { return sexp_may_fail(*x.e); },
                 [&](const EIota& x) { return size_may_fail(x.n); },
                 [&](const EReplicate& x) { return size_may_fail(x.n); },
                 [&](const EAlloc& x) { return size_may_fail(x.size); },
                 [&](const EScratch&) { return false; }, [&](const ECopy&) { return false; },
                 [&](const ETranspose&) { return false; }, [&](const EConcat&) { return false; },
                 [&](const EIndex& x) {
                   const auto& t = arr(x.arr.s);
                   if (!t || x.entries.size() > t->dims.size()) return true;
                   for (size_t k = 0; k < x.entries.size(); ++k) {
                     const Entry& e = x.entries[k];
                     auto i = to_poly(*e.start);
                     if (e.count || sexp_may_fail(*e.start) || !i) return true;
                     Poly ii = i->substitute(defs_);
                     if (!solver.proves(Formula::conj({ge(ii, Poly(0)), lt(ii, t->dims[k])})))
                       return true;
                   }
                   return false;
                 },
                 [&](const EKernel& x) {
                   if (size_may_fail(x.bound)) return true;
                   std::vector<Formula> kf = solver.facts();
                   range_facts(x.iter.s, x.bound, kf);
                   Solver& ks = solver_for(kf);
                   for (const Stmt& st : x.body.stmts)
                     if (may_fail(st, ks, depth + 1)) return true;
                   return false;
                 },
                 [&](const auto&) { return true; }},
      l->exp.node);
}

bool Pass::sexp_may_fail(const SExp& e) {
  return std::visit(
      Overloaded{[](const Lit&) { return false; }, [](const SVar&) { return false; },
                 [&](const SUnary& u) { return u.op == UnOp::Neg || sexp_may_fail(*u.a); },
                 [&](const SBinary& b) {
                   bool arith = b.op == BinOp::Add || b.op == BinOp::Sub || b.op == BinOp::Mul ||
                                b.op == BinOp::Div || b.op == BinOp::Mod;
                   if (arith && !is_float(e, 0)) return true;
                   return sexp_may_fail(*b.a) || sexp_may_fail(*b.b);
                 },
                 [&](const SCall& c) {
                   if (c.fn == Fn::Abs || c.fn == Fn::ToI32 || c.fn == Fn::ToI64) return true;
                   for (const SExpP& a : c.args)
                     if (sexp_may_fail(*a)) return true;
                   return false;
                 }},
      e.node);
}

/// Whether a scalar expression is of a floating-point type (its operations never fail).
bool Pass::is_float(const SExp& e, int depth) {
  if (depth > 16) return false;
  auto fl = [](ScalarType t) { return t == ScalarType::F32 || t == ScalarType::F64; };
  return std::visit(Overloaded{[&](const Lit& l) { return fl(l.type); },
                               [&](const SVar& v) {
                                 auto b = ix_.binding.find(v.name);
                                 if (b != ix_.binding.end() && b->second->type &&
                                     b->second->type->kind == Type::Kind::Scalar)
                                   return fl(b->second->type->elem);
                                 auto site = ix_.site.find(v.name);
                                 if (site == ix_.site.end()) return false;
                                 const auto* l = std::get_if<SLet>(
                                     &site->second.first->stmts[site->second.second].node);
                                 const auto* x = l ? std::get_if<EScalar>(&l->exp.node) : nullptr;
                                 return x && is_float(*x->e, depth + 1);
                               },
                               [&](const SUnary& u) { return is_float(*u.a, depth + 1); },
                               [&](const SBinary& b) { return is_float(*b.a, depth + 1); },
                               [&](const SCall& c) {
                                 if (c.fn == Fn::ToF32 || c.fn == Fn::ToF64) return true;
                                 if (c.fn == Fn::ToI32 || c.fn == Fn::ToI64 || c.args.empty())
                                   return false;
                                 return is_float(*c.args.back(), depth + 1);
                               }},
                    e.node);
}

std::optional<Pass::Bounds> Pass::bounds(const Point& pt, Solver& solver) {
  Bounds out;
  std::vector<Formula> parts;
  bool nonempty = true;
  auto inside = [&](const Poly& lo, const Poly& hi, const Poly& dim) {
    out.positive.push_back(lo + Poly(1)); // lo >= 0
    out.positive.push_back(dim - hi);     // hi < dim
    return Formula::conj({ge(lo, Poly(0)), lt(hi, dim)});
  };
  if (pt.entries) {
    for (size_t k = 0; k < pt.entries->size() && k < pt.dest_dims.size(); ++k) {
      const SymEntry& e = (*pt.entries)[k];
      const Poly& dim = pt.dest_dims[k];
      // As polynomials that must be positive: the index, or the slice's ends.
      out.positive.push_back(e.start + Poly(1));
      out.positive.push_back(dim - e.start);
      if (e.count) {
        Poly last = e.start + (*e.count - Poly(1)) * e.stride;
        out.positive.push_back(last + Poly(1));
        out.positive.push_back(dim - last);
        nonempty = nonempty && solver.proves(ge(*e.count, Poly(1)));
      }
      parts.push_back(entry_inside(e, dim));
    }
    out.whole = Formula::conj(parts);
  } else if (pt.inner && !pt.dest_dims.empty()) {
    Poly lo = pt.inner->offset, hi = pt.inner->offset;
    std::vector<Formula> empty;
    for (const auto& [cnt, st] : pt.inner->dims) {
      Formula e = le(cnt, Poly(0));
      bool seen = false;
      for (const Formula& g : empty)
        seen = seen || g.to_string() == e.to_string();
      if (!seen) empty.push_back(e);
      nonempty = nonempty && solver.proves(ge(cnt, Poly(1)));
      Poly span = (cnt - Poly(1)) * st;
      if (solver.proves(ge(st, Poly(0))))
        hi = hi + span;
      else if (solver.proves(le(st, Poly(0))))
        lo = lo + span;
      else
        throw Refused{Property::Bounds, "the sign of the stride " + st.to_string() +
                                            " of the updated LMAD slice is unknown"};
    }
    empty.push_back(inside(lo, hi, pt.dest_dims[0]));
    out.whole = Formula::disj(empty);
  } else {
    return std::nullopt;
  }
  if (!nonempty) out.positive.clear();
  return out;
}

void Pass::collect_bounds(const Formula& f, VarBounds& vb) {
  if (f.kind == Formula::Kind::And) {
    for (const Formula& k : f.kids)
      collect_bounds(k, vb);
    return;
  }
  if (f.kind != Formula::Kind::Cmp) return;
  auto single = [](const Poly& p) -> std::optional<std::string> {
    auto fv = p.free_vars();
    if (fv.size() == 1 && p == Poly::var(fv[0])) return fv[0];
    return std::nullopt;
  };
  auto add = [&](const std::string& v, Rel r, const Poly& e) {
    // v r e
    if (r == Rel::Lt) vb.hi.emplace(v, e - Poly(1));
    if (r == Rel::Le || r == Rel::Eq) vb.hi.emplace(v, e);
    if (r == Rel::Gt) vb.lo.emplace(v, e + Poly(1));
    if (r == Rel::Ge || r == Rel::Eq) vb.lo.emplace(v, e);
  };
  if (auto v = single(f.lhs)) add(*v, f.rel, f.rhs);
  if (auto v = single(f.rhs)) add(*v, mirror(f.rel), f.lhs);
}

/// d > 0, first with each name the polynomial is affine in and that has a known range
/// (kernel and loop counters, `assume`d bounds) replaced by the end of its range that
/// minimises d (the sign of its coefficient decides): Z3's nonlinear arithmetic answers
/// the question without those names far faster. Sound: d >= the substituted d.
bool Pass::prove_positive(Poly d, const std::vector<Frame>& frames, Solver& solver) {
  VarBounds vb;
  for (const Frame& f : frames)
    if ((f.kind == Frame::Kind::Kernel || f.kind == Frame::Kind::Loop) && f.bound)
      if (auto b = to_poly(*f.bound)) {
        vb.lo.emplace(f.iter, Poly(0));
        vb.hi.emplace(f.iter, *b - Poly(1));
      }
  for (const Formula& f : solver.facts())
    collect_bounds(f, vb);
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    for (const std::string& v : d.free_vars()) {
      Poly d0 = d.substitute({{v, Poly(0)}});
      Poly coef = d.substitute({{v, Poly(1)}}) - d0;
      if (!(d0 + coef * Poly::var(v) == d)) continue; // not affine in v
      auto lo = vb.lo.find(v), hi = vb.hi.find(v);
      std::optional<Poly> to;
      if (lo != vb.lo.end() && solver.proves(ge(coef, Poly(0))))
        to = lo->second;
      else if (hi != vb.hi.end() && solver.proves(le(coef, Poly(0))))
        to = hi->second;
      if (!to) continue;
      auto fv = to->free_vars();
      if (std::find(fv.begin(), fv.end(), v) != fv.end()) continue;
      d = d.substitute({{v, *to}});
      changed = true;
      break;
    }
    if (!changed) break;
  }
  return solver.proves(gt(d, Poly(0)));
}

bool Pass::remove_alloc_if_dead(const std::string& m) {
  if (body_mentions_name(p_.def.body, m)) return false;
  std::function<bool(Body&)> go = [&](Body& b) {
    for (size_t k = 0; k < b.stmts.size(); ++k) {
      auto* l = std::get_if<SLet>(&b.stmts[k].node);
      if (!l) continue;
      if (l->pats.size() == 1 && l->pats[0].name.s == m &&
          std::holds_alternative<EAlloc>(l->exp.node)) {
        b.stmts.erase(b.stmts.begin() + static_cast<long>(k));
        return true;
      }
      bool done = false;
      each_body(b.stmts[k], [&](Body& in) { done = done || go(in); });
      if (done) return true;
    }
    return false;
  };
  return go(p_.def.body);
}

} // namespace funmem::sc
