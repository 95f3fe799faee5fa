// Short-circuiting: Bounds of the place, statements that may fail, positivity (see pass.h).
#include "analysis/short_circuit/pass.h"

#include "ir/names.h"

namespace funmem::sc {

/// How a statement may end the run: not at all, only with a resource error (an
/// allocation the facts do not bound by --max-memory's default, 2^28 elements), or with
/// another error (an assume, an integer operation that may overflow or divide by zero, a
/// read not shown inside its array, a size not shown non-negative, anything not listed).
Fail Pass::may_fail(const Stmt& s, Solver& solver, int depth) {
  if (opt_.broken_never_fails) return Fail::None; // deliberately broken
  auto [slot, fresh] = fail_cache_.try_emplace({&s, &solver}, Fail::Other);
  if (fresh) slot->second = judge_failure(s, solver, depth);
  return slot->second;
}

Fail Pass::judge_failure(const Stmt& s, Solver& solver, int depth) {
  const auto* l = std::get_if<SLet>(&s.node);
  if (!l || depth > 8) return Fail::Other;
  // The heap semantics ends a run that writes or reads a cell outside a block: every array
  // the statement makes, and (but for a kernel, whose body is judged statement by
  // statement) every array it reads, must be shown inside its block. Hand-written FUNMEM
  // and the fuzzer's mutants may place one outside (a mutant's 2-element array in an
  // empty block moved above a failing read changed the run's error).
  std::set<std::string> names, mems, own;
  for (const Binding& b : l->pats)
    own.insert(b.name.s);
  if (!std::holds_alternative<EKernel>(l->exp.node)) stmt_mentions(s, names, mems);
  // It also ends a run that reads a cell written as another element type: an array whose
  // block may hold arrays of another element type (hand-written FUNMEM) may fail at any
  // read (a kernel's reads are its body's statements).
  for (const std::string& n : names)
    if (!own.count(n) && block_holds_other_types(n)) return Fail::Other;
  if (!opt_.broken_outside_block) { // (deliberately broken: layouts taken inside)
    names.insert(own.begin(), own.end());
    // The statement's own arrays do not exist before it: no escape through a negative
    // dimension of theirs.
    InsideQuery q{solver, [&](const std::string& n) { return !own.count(n); }};
    for (const std::string& n : names)
      if (const auto& t = arr(n); t && !shown_inside(n, q)) return Fail::Other;
  }
  auto size_may_fail = [&](const SExpP& e) {
    auto p = to_poly(*e);
    if (sexp_may_fail(*e, solver) || !p || !solver.proves(ge(p->substitute(defs_), Poly(0))))
      return Fail::Other;
    return Fail::Resource; // any allocation may run out of memory
  };
  auto result_may_fail = [&]() { // the array the statement makes
    const auto& t = arr(l->pats.at(0).name.s);
    if (!t) return l->pats.size() == 1 ? Fail::None : Fail::Other;
    return Fail::Resource; // the value semantics allocates it: it may run out of memory
  };
  return std::visit(
      Overloaded{
          [&](const EScalar& x) { return sexp_may_fail(*x.e, solver) ? Fail::Other : Fail::None; },
          [&](const EIota& x) { return size_may_fail(x.n); },
          [&](const EReplicate& x) { return std::max(size_may_fail(x.n), result_may_fail()); },
          [&](const EAlloc& x) { return size_may_fail(x.size); },
          [&](const EScratch&) { return result_may_fail(); },
          [&](const ECopy&) { return result_may_fail(); },
          [&](const ETranspose&) { return Fail::None; },
          [&](const EConcat&) { return result_may_fail(); },
          [&](const EIndex& x) {
            const auto& t = arr(x.arr.s);
            if (!t || x.entries.size() > t->dims.size()) return Fail::Other;
            for (size_t k = 0; k < x.entries.size(); ++k) {
              const Entry& e = x.entries[k];
              auto i = to_poly(*e.start);
              if (e.count || sexp_may_fail(*e.start, solver) || !i) return Fail::Other;
              Poly ii = i->substitute(defs_);
              if (!solver.proves(Formula::conj({ge(ii, Poly(0)), lt(ii, t->dims[k])})))
                return Fail::Other;
            }
            return Fail::None;
          },
          [&](const EKernel& x) {
            Fail f = size_may_fail(x.bound);
            if (f == Fail::Other) return f;
            if (arr(l->pats.at(0).name.s)) f = std::max(f, result_may_fail());
            std::vector<Formula> kf = solver.facts();
            range_facts(x.iter.s, x.bound, kf);
            Solver& ks = solver_for(kf);
            for (const Stmt& st : x.body.stmts)
              f = std::max(f, may_fail(st, ks, depth + 1));
            return f;
          },
          [&](const auto&) { return Fail::Other; }},
      l->exp.node);
}

bool Pass::sexp_may_fail(const SExp& e, Solver& solver) {
  // An integer operation whose result the facts keep inside i64 (and a division whose
  // divisor they keep away from 0, and from -1 under the least i64) cannot fail.
  auto within = [&](const SExp& x) {
    try {
      auto t = expr_type(x, 0);
      auto p = to_poly(x);
      if (!p || !t || (*t != ScalarType::I64 && *t != ScalarType::I32)) return false;
      // i64: inside +-2^62, a sufficient condition the solver can decide without
      // coefficients beyond 64 bits (moving 1 across `n - 1 <= 2^63 - 1` would overflow
      // them, and the question would be lost).
      const bool i64 = *t == ScalarType::I64;
      const int64_t lo = i64 ? -(int64_t{1} << 62) : INT32_MIN;
      const int64_t hi = i64 ? int64_t{1} << 62 : INT32_MAX;
      Poly q = p->substitute(defs_);
      return solver.proves(Formula::conj({ge(q, Poly(lo)), le(q, Poly(hi))}));
    } catch (const SymbolicOverflow&) {
      return false;
    }
  };
  auto divisor_safe = [&](const SExp& a, const SExp& b) {
    try {
      auto t = expr_type(a, 0);
      auto pa = to_poly(a), pb = to_poly(b);
      if (!pa || !pb || !t || (*t != ScalarType::I64 && *t != ScalarType::I32)) return false;
      const int64_t least = *t == ScalarType::I64 ? INT64_MIN : INT32_MIN;
      Poly qa = pa->substitute(defs_), qb = pb->substitute(defs_);
      return solver.proves(ge(qb, Poly(1))) ||
             (solver.proves(le(qb, Poly(-1))) && solver.proves(gt(qa, Poly(least))));
    } catch (const SymbolicOverflow&) {
      return false;
    }
  };
  return std::visit(Overloaded{[](const Lit&) { return false; }, [](const SVar&) { return false; },
                               [&](const SUnary& u) {
                                 if (sexp_may_fail(*u.a, solver)) return true;
                                 return u.op == UnOp::Neg && !is_float(e) && !within(e);
                               },
                               [&](const SBinary& b) {
                                 if (sexp_may_fail(*b.a, solver) || sexp_may_fail(*b.b, solver))
                                   return true;
                                 if (is_float(e)) return false;
                                 if (b.op == BinOp::Add || b.op == BinOp::Sub || b.op == BinOp::Mul)
                                   return !within(e);
                                 if (b.op == BinOp::Div || b.op == BinOp::Mod)
                                   return !divisor_safe(*b.a, *b.b);
                                 return false;
                               },
                               [&](const SCall& c) {
                                 for (const SExpP& a : c.args)
                                   if (sexp_may_fail(*a, solver)) return true;
                                 if (c.fn == Fn::ToI32 || c.fn == Fn::ToI64) return true;
                                 return c.fn == Fn::Abs && !within(e);
                               }},
                    e.node);
}

/// Whether a scalar expression is of a floating-point type (its operations never fail).
bool Pass::is_float(const SExp& e) {
  auto t = expr_type(e, 0);
  return t && (*t == ScalarType::F32 || *t == ScalarType::F64);
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
    for (const auto& [cnt, st] : pt.inner->dims)
      nonempty = nonempty && solver.proves(ge(cnt, Poly(1)));
    auto ext = lmad_extent(*pt.inner, [&](const Formula& f) { return solver.proves(f); });
    if (!ext)
      throw Refused{Property::Bounds,
                    "the sign of a stride of the updated LMAD slice " + pt.inner->to_string() +
                        " is unknown",
                    "stride sign unknown"};
    std::vector<Formula> empty = ext->empty;
    empty.push_back(inside(ext->lo, ext->hi, pt.dest_dims[0]));
    out.whole = Formula::disj(empty);
  } else {
    return std::nullopt;
  }
  if (!nonempty) out.positive.clear();
  return out;
}

bool Pass::shown_inside(const std::string& n, InsideQuery& q, int depth) {
  if (depth > 32) return false;
  if (auto lp = ix_.loop_param.find(n); lp != ix_.loop_param.end()) {
    // Inside at the first iteration, and each iteration keeps it inside.
    if (!q.assumed.insert(n).second) return true;
    const auto& [loop, j] = lp->second;
    bool ok = j < loop->inits.size() && j < loop->body.results.size() &&
              shown_inside(loop->inits[j].s, q, depth + 1) &&
              shown_inside(loop->body.results[j].s, q, depth + 1);
    q.assumed.erase(n);
    return ok;
  }
  if (auto pl = placed_.find(n); pl != placed_.end()) {
    try {
      // (sc-chain-past-check, deliberately broken: a place resting on a run-time check
      // taken as shown.)
      return (opt_.broken_chain_check || q.solver.proves(pl->second.second.substitute(defs_))) &&
             shown_inside(pl->second.first, q, depth + 1);
    } catch (const SymbolicOverflow&) {
      return false;
    }
  }
  auto site = ix_.site.find(n);
  if (site == ix_.site.end()) { // a parameter of the definition: the run sizes its block
    for (const Binding& b : p_.def.params)
      if (b.name.s == n) return true;
    return false;
  }
  const SLet& l = std::get<SLet>(site->second.first->stmts[site->second.second].node);
  size_t j = 0;
  while (j < l.pats.size() && l.pats[j].name.s != n)
    ++j;
  auto from = [&](const Name& a) { return shown_inside(a.s, q, depth + 1); };
  std::optional<bool> derived = std::visit(
      Overloaded{[&](const EIndex& x) -> std::optional<bool> { return from(x.arr); },
                 [&](const ELmadSlice& x) -> std::optional<bool> {
                   // Its offset and strides wrap modulo 2^64: the run's bounds check
                   // shows the wrapped place inside, the integer one only if none wraps.
                   try {
                     return from(x.arr) && wrap_free(sym_lmad(x.lmad), q.solver);
                   } catch (const Untranslatable&) {
                     return false;
                   }
                 },
                 [&](const ETranspose& x) -> std::optional<bool> { return from(x.arr); },
                 [&](const EUpdate& x) -> std::optional<bool> { return from(x.arr); },
                 [&](const EUpdateLmad& x) -> std::optional<bool> { return from(x.arr); },
                 [&](const ELoop& x) -> std::optional<bool> {
                   return j < x.params.size() && from(x.params[j].name);
                 },
                 [&](const EIf& x) -> std::optional<bool> {
                   return j < x.then_body.results.size() && j < x.else_body.results.size() &&
                          from(x.then_body.results[j]) && from(x.else_body.results[j]);
                 },
                 [](const auto&) -> std::optional<bool> { return std::nullopt; }},
      l.exp.node);
  if (derived) return *derived;
  // Created in its block: the block's allocation says how large it is; a parameter
  // block holds at least each nonempty array parameter placed in it.
  const auto& t = arr(n);
  if (!t) return false;
  try {
    // An array that exists has no negative dimension (its creation checked them).
    std::vector<Formula> premises;
    auto negative = [&](const ArrT& a) {
      for (const Poly& d : a.dims)
        premises.push_back(lt(d.substitute(defs_), Poly(0)));
    };
    if (q.exists(n)) negative(*t);
    auto proves = [&](const Formula& f) {
      std::vector<Formula> either = premises;
      either.push_back(f);
      return q.solver.proves(Formula::disj(either));
    };
    auto ext = lmad_extent(lmad_substitute(t->lay, defs_), proves);
    if (!ext) return false;
    if (alloc_body(t->mem)) {
      auto ms = ix_.site.find(t->mem);
      const auto& al = std::get<SLet>(ms->second.first->stmts[ms->second.second].node);
      auto size = to_poly(*std::get<EAlloc>(al.exp.node).size);
      return size && proves(ext->within(Poly(0), size->substitute(defs_) - Poly(1)));
    }
    for (const Binding& b : p_.def.params) {
      const auto& pa = arr(b.name.s);
      if (!pa || pa->mem != t->mem) continue;
      negative(*pa);
      auto pext = lmad_extent(lmad_substitute(pa->lay, defs_), proves);
      if (!pext) continue;
      std::vector<Formula> nonempty;
      for (const auto& [c, st] : pa->lay.dims)
        nonempty.push_back(ge(c.substitute(defs_), Poly(1)));
      nonempty.push_back(ge(ext->lo, Poly(0)));
      nonempty.push_back(le(ext->hi, pext->hi));
      std::vector<Formula> either = ext->empty;
      either.push_back(Formula::conj(nonempty));
      if (proves(Formula::disj(either))) return true;
    }
    return false;
  } catch (const SymbolicOverflow&) {
    return false;
  }
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

/// The source's place must send distinct elements to distinct places: for each dimension
/// k, the elements with index t in it are disjoint from those with a larger index (two
/// distinct indices differ first somewhere). Asked with the facts at the creation.
void Pass::check_injective(const Point& pt, const Trace& t, ScAttempt& a) {
  if (opt_.broken_no_injective) return; // deliberately broken
  const SymLmad& L = t.L;
  // The place is evaluated when the source is created: a division in it (from an index
  // of the update) would fail there, not at the update.
  auto divides = [](const Poly& p) {
    bool found = false;
    for (const auto& [m, c] : p.terms())
      for (const auto& [atom, e] : m)
        if (atom->kind == AtomKind::Div || atom->kind == AtomKind::Mod) {
          auto k = atom->args.size() == 2 ? atom->args[1].constant() : std::nullopt;
          found = found || !k || *k == 0 || *k == -1;
        }
    return found;
  };
  bool div = divides(L.offset);
  for (const auto& [cnt, st] : L.dims)
    div = div || divides(cnt) || divides(st);
  if (div)
    throw Refused{Property::Projection,
                  "the place " + L.to_string() + " of " + t.root +
                      " divides; evaluated at the creation, a division by "
                      "zero would end the run there instead of at " +
                      at(pt.pos),
                  "place divides"};
  Solver& solver = solver_for(t.cfacts);
  const std::string what = "the place " + L.to_string() + " of " + t.root;
  const std::string proof = require_injective(L, what, Property::Projection, solver, a);
  a.proofs.push_back({"injective", "place " + L.to_string(), t.root, proof});
}

std::string Pass::require_injective(const SymLmad& L, const std::string& what, Property property,
                                    Solver& solver, ScAttempt& a) {
  const bool own = property == Property::CreationPoint;
  if (nested_strides(L, solver)) return "distinct elements in distinct cells (nested strides)";
  const std::string v = fresh_name(names(), "k_dim");
  const Poly tv = Poly::var(v);
  for (size_t k = 0; k < L.dims.size(); ++k) {
    const auto& [cnt, st] = L.dims[k];
    if (solver.proves(le(cnt, Poly(1)))) continue;
    // (An LMAD with no element sends none anywhere.)
    std::vector<Formula> nonzero = {Formula::cmp(st, Rel::Ne, Poly(0))};
    for (const auto& [c, s] : L.dims)
      nonzero.push_back(le(c, Poly(0)));
    if (!solver.proves(Formula::disj(nonzero))) // refused without the prover
      throw Refused{property,
                    what + " may put two of its elements in one cell: the stride " +
                        st.to_string() + " of dimension " + std::to_string(k) + " may be 0",
                    own ? "own layout races" : "stride may be 0"};
    if (L.dims.size() == 1 && (solver.proves(gt(st, Poly(0))) || solver.proves(lt(st, Poly(0)))))
      continue;
    SymLmad at_t = L, above = L;
    at_t.offset = L.offset + tv * st;
    at_t.dims[k] = {Poly(1), st};
    above.offset = L.offset + (tv + Poly(1)) * st;
    above.dims[k] = {cnt - tv - Poly(1), st};
    std::vector<Formula> f = solver.facts();
    f.push_back(ge(tv, Poly(0)));
    f.push_back(lt(tv, cnt));
    Solver& ks = solver_for(f);
    ProveResult r = disjoint(at_t, above, ks, a);
    if (r.answer != Answer::Disjoint)
      throw Refused{property,
                    what + " may put two of its elements in one cell (dimension " +
                        std::to_string(k) + "): " + summary(r),
                    own ? "own layout races" : "elements may share a cell"};
  }
  return "distinct elements in distinct cells";
}

/// A sufficient test of injectivity: the dimensions ordered by |stride| (each order
/// proved), each one's stride beyond the span of the smaller ones, unless it has one
/// element at most or the LMAD none.
bool Pass::nested_strides(const SymLmad& L, Solver& solver) {
  std::vector<std::pair<Poly, Poly>> dims; // (count, |stride|)
  std::vector<Formula> empty;
  for (const auto& [cnt, st] : L.dims) {
    empty.push_back(le(cnt, Poly(0)));
    if (solver.proves(ge(st, Poly(0))))
      dims.push_back({cnt, st});
    else if (solver.proves(le(st, Poly(0))))
      dims.push_back({cnt, -st});
    else
      return false;
  }
  // a before b: |stride a| <= |stride b|, unless one of them has an element at most
  // (it adds nothing to a span) or the LMAD is empty.
  // A disjunction is asked member by member first (the solver's shortcuts decide most
  // single comparisons without Z3), then whole.
  auto proves_any = [&](const std::vector<Formula>& f) {
    for (const Formula& g : f)
      if (solver.proves(g)) return true;
    return solver.proves(Formula::disj(f));
  };
  auto before = [&](const std::pair<Poly, Poly>& x, const std::pair<Poly, Poly>& y) {
    std::vector<Formula> f = empty;
    f.push_back(le(x.second, y.second));
    f.push_back(le(x.first, Poly(1)));
    f.push_back(le(y.first, Poly(1)));
    std::rotate(f.begin(), f.end() - 3, f.end()); // the order itself first
    return proves_any(f);
  };
  for (size_t k = 0; k < dims.size(); ++k) // selection sort by proved order
    for (size_t j = k + 1; j < dims.size(); ++j)
      if (!before(dims[k], dims[j])) {
        if (!before(dims[j], dims[k])) return false;
        std::swap(dims[k], dims[j]);
      }
  for (size_t k = 0; k < dims.size(); ++k) // the relaxed order need not be transitive
    for (size_t j = k + 1; j < dims.size(); ++j)
      if (!before(dims[k], dims[j])) return false;
  Poly span(0);
  for (const auto& [cnt, st] : dims) {
    std::vector<Formula> ok{gt(st, span), le(cnt, Poly(1))};
    ok.insert(ok.end(), empty.begin(), empty.end());
    if (!proves_any(ok)) return false;
    span = span + (cnt - Poly(1)) * st;
  }
  return true;
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
