// Short-circuiting: Loops carrying the source (6.6.1), lifting definitions, run-time checks (see
// pass.h).
#include "analysis/short_circuit/pass.h"

namespace funmem::sc {

/// The aliases of the family created by statement `s` (views and updates; nested
/// bodies add views only) and the writes of updates at top level.
/// The aliases of a carried loop: the parameter, what the body derives from it (its
/// updates are the body's writes), the body's result and the loop's result.
void Pass::carried(const SLet& l, const ELoop& x, Carried& cl,
                   std::map<std::string, SymLmad>& fam) {
  const size_t j = cl.j;
  fam[x.params[j].name.s] = fam.at(x.inits[j].s);
  for (size_t bd = 0; bd < x.body.stmts.size(); ++bd) {
    std::vector<std::pair<size_t, Acc>> w;
    family(x.body.stmts[bd], fam, false, bd, w);
    for (auto& e : w)
      cl.writes.push_back(std::move(e));
  }
  const std::string& q = x.body.results[j].s;
  if (!fam.count(q))
    throw Refused{Property::CreationPoint, "the loop at " + at(x.body.pos) + " returns " + q +
                                               ", which is not built from " + x.params[j].name.s};
  for (size_t k = 0; k < x.body.results.size(); ++k)
    if (k != j && fam.count(x.body.results[k].s))
      throw Refused{Property::LastUse,
                    x.body.results[k].s + " is returned by the body of the loop at " +
                        at(x.body.pos) + " as the next value of " + x.params[k].name.s};
  fam[l.pats[j].name.s] = fam.at(q);
}

void Pass::family(const Stmt& s, std::map<std::string, SymLmad>& fam, bool nested, size_t d,
                  std::vector<std::pair<size_t, Acc>>& writes) {
  const auto* l = std::get_if<SLet>(&s.node);
  if (!l) return;
  auto in = [&](const Name& n) { return fam.count(n.s) > 0; };
  auto pat = [&]() -> const std::string& { return l->pats.at(0).name.s; };
  // The pattern becomes an alias in the block its source is in.
  auto derive = [&](const Name& src, const SymLmad& lay) {
    fam[pat()] = lay;
    auto m = fam_mem_.find(src.s);
    if (m != fam_mem_.end()) fam_mem_[pat()] = m->second;
  };
  // An update of an alias writes its place and makes the result an alias.
  auto update = [&](const Name& arr, const SymLmad& place) {
    if (nested)
      throw Refused{Property::LastUse, arr.s + " is updated inside a nested body at " + at(s.pos)};
    writes.push_back({d, {place, "update of " + arr.s + " at " + at(s.pos)}});
    derive(arr, fam.at(arr.s));
  };
  std::visit(
      Overloaded{[&](const EIndex& x) {
                   if (!in(x.arr)) return;
                   const auto& t = arr(pat());
                   if (t) derive(x.arr, lmad_index(fam.at(x.arr.s), sym_entries(x.entries)));
                 },
                 [&](const ELmadSlice& x) {
                   if (in(x.arr)) derive(x.arr, lmad_compose(fam.at(x.arr.s), sym_lmad(x.lmad)));
                 },
                 [&](const ETranspose& x) {
                   if (in(x.arr)) derive(x.arr, lmad_transpose(fam.at(x.arr.s)));
                 },
                 [&](const EUpdate& x) {
                   if (in(x.arr))
                     update(x.arr, lmad_index(fam.at(x.arr.s), sym_entries(x.entries)));
                 },
                 [&](const EUpdateLmad& x) {
                   if (in(x.arr)) update(x.arr, lmad_compose(fam.at(x.arr.s), sym_lmad(x.lmad)));
                 },
                 [&](const ELoop& x) {
                   Carried* cl = nullptr;
                   for (Carried& c : carried_)
                     if (!nested && c.loop == &x) cl = &c;
                   for (size_t j = 0; j < x.inits.size(); ++j)
                     if (in(x.inits[j]) && !(cl && cl->j == j))
                       throw Refused{Property::CreationPoint,
                                     x.inits[j].s + " flows into the loop at " + at(s.pos) +
                                         ", which does not carry it in its own block"};
                   if (cl) {
                     carried(*l, x, *cl, fam);
                     return;
                   }
                   for (const Stmt& st : x.body.stmts)
                     family(st, fam, true, d, writes);
                   // The loop's result would be the source in its old block.
                   for (const Name& n : x.body.results)
                     if (in(n))
                       throw Refused{Property::LastUse,
                                     n.s + " is returned by the body of the loop at " + at(s.pos)};
                 },
                 [&](const EIf& x) {
                   for (const Body* b : {&x.then_body, &x.else_body}) {
                     for (const Stmt& st : b->stmts)
                       family(st, fam, true, d, writes);
                     for (const Name& n : b->results)
                       if (in(n))
                         throw Refused{Property::LastUse,
                                       n.s + " is returned by a branch of the if at " + at(s.pos)};
                   }
                 },
                 [&](const EKernel& x) {
                   for (const Stmt& st : x.body.stmts)
                     family(st, fam, true, d, writes);
                 },
                 [](const auto&) {}},
      l->exp.node);
}

/// Makes `n` available at the creation (index c of B): nothing to do when it is
/// defined before; a scalar definition or allocation between creation and point is
/// lifted (with what it needs) unless it depends on the source.
void Pass::need(Body& B, size_t c, size_t P, const std::map<std::string, SymLmad>& fam,
                const std::string& n, Property property, std::set<size_t>& lift, Solver& solver) {
  auto it = ix_.site.find(n);
  if (it == ix_.site.end() || it->second.first != &B) return;
  size_t d = it->second.second;
  if (d < c || d >= P || lift.count(d)) return;
  const Stmt& st = B.stmts[d];
  const SLet& l = std::get<SLet>(st.node);
  std::string where =
      n + " (defined at " + at(st.pos) + ", after the creation at " + at(B.stmts[c].pos) + ")";
  if (l.pats.size() != 1)
    throw Refused{property, where + " is computed by a loop or if and cannot be lifted",
                  "not liftable"};
  std::set<std::string> deps;
  std::visit(Overloaded{[&](const EScalar& x) { sexp_vars(*x.e, deps); },
                        [&](const EAlloc& x) { sexp_vars(*x.size, deps); },
                        [&](const EIndex& x) {
                          if (fam.count(x.arr.s))
                            throw Refused{property,
                                          where + " is read from " + x.arr.s +
                                              ", an alias of the source: it depends "
                                              "on the source and cannot be lifted",
                                          "depends on the source"};
                          const auto& t = arr(x.arr.s);
                          if (!t || x.entries.size() != t->dims.size())
                            throw Refused{property, where + " cannot be lifted", "not liftable"};
                          auto as = ix_.site.find(x.arr.s);
                          // An array the creation itself defines (another result of
                          // the creating if) does not exist above it.
                          const size_t first_after = opt_.broken_lift_if_result ? c + 1 : c;
                          if (as != ix_.site.end() && as->second.first == &B &&
                              as->second.second >= first_after) // (or deliberately broken)
                            throw Refused{property,
                                          where + " reads " + x.arr.s +
                                              ", which is defined after the creation",
                                          "not liftable"};
                          for (const Entry& e : x.entries)
                            sexp_vars(*e.start, deps);
                        },
                        [&](const auto&) {
                          throw Refused{property,
                                        where + " is not a scalar definition or "
                                                "allocation and cannot be lifted",
                                        "not liftable"};
                        }},
             l.exp.node);
  for (const std::string& v : deps)
    need(B, c, P, fam, v, property, lift, solver);
  // Moved above the statements from the creation to it: when it may fail (a division,
  // an overflow, a read, an allocation) none of them may, or the run would end with
  // another error than the source's.
  if (const Fail f = may_fail(st, solver, 0); f != Fail::None)
    for (size_t k = c; k < d; ++k)
      if (!lift.count(k) && conflict(f, may_fail(B.stmts[k], solver, 0)))
        throw Refused{property,
                      where + " may fail, and cannot be moved above the statement at " +
                          at(B.stmts[k].pos) + ", which may fail too",
                      "may fail"};
  lift.insert(d);
}

/// The update's bounds check as `assert` statements at the creation (an index, or a
/// slice's count and its first and last element, per entry, in the order the update
/// checks them, each blamed on the entry's position), for the entries the facts do
/// not show inside. Empty when they can go there; otherwise why not. They can when
/// every name they use is defined before the creation or can be lifted there, and no
/// statement they move past can end the run first: then a failing check ends it with
/// the update's own error before anything is written.
std::string Pass::runtime_checks(const Point& pt, size_t c,
                                 const std::map<std::string, SymLmad>& fam, std::set<size_t>& lift,
                                 Solver& solver, std::vector<Stmt>& out, const char*& rule) {
  rule = "LMAD-slice update";
  if (!pt.syn_entries || !pt.entries || pt.dest_dims_syn.size() < pt.syn_entries->size())
    return "only an update by indices and slices is checked there";
  rule = "an entry may fail";
  Body& B = *pt.B;
  auto s_le = [](SExpP a, SExpP b) { return mk_bin(BinOp::Le, std::move(a), std::move(b)); };
  auto s_lt = [](SExpP a, SExpP b) { return mk_bin(BinOp::Lt, std::move(a), std::move(b)); };
  auto s_and = [](SExpP a, SExpP b) { return mk_bin(BinOp::And, std::move(a), std::move(b)); };
  auto within = [&](const SExpP& i, const SExpP& dim) {
    return s_and(s_le(mk_int(0), i), s_lt(i, dim));
  };
  std::vector<Stmt> checks;
  auto check = [&](SExpP cond, const std::string& kind, Pos at) {
    Stmt st{SAssume{std::move(cond), kind}, at};
    checks.push_back(std::move(st));
  };
  // The update evaluates its entries in order, each checked before the next: the checks
  // reproduce that exactly only when no entry's evaluation can fail.
  for (const Entry& e : *pt.syn_entries)
    for (const SExpP* x : {&e.start, &e.count, &e.stride})
      if (*x && sexp_may_fail(**x, solver))
        return "the entry at " + at(e.start->pos) +
               " may fail when evaluated (an integer operation), before its bounds are checked";
  for (size_t k = 0; k < pt.syn_entries->size(); ++k) {
    const Entry& e = (*pt.syn_entries)[k];
    const SymEntry& se = (*pt.entries)[k];
    const Poly& dim = pt.dest_dims[k];
    const SExpP& dsyn = pt.dest_dims_syn[k];
    if (!e.count) {
      if (!solver.proves(entry_inside(se, dim)))
        check(within(e.start, dsyn), "bounds", e.start->pos);
      continue;
    }
    if (!solver.proves(ge(*se.count, Poly(0))))
      check(s_le(mk_int(0), e.count), "size", e.count->pos);
    if (solver.proves(entry_inside(se, dim))) continue;
    // The last element start + (count - 1) * stride inside, without computing it (it
    // may lie beyond i64).
    if (opt_.broken_check_arith) { // deliberately broken: computes it, and may overflow
      SExpP last = mk_bin(BinOp::Add, e.start,
                          mk_bin(BinOp::Mul, mk_bin(BinOp::Sub, e.count, mk_int(1)),
                                 e.stride ? e.stride : mk_int(1)));
      check(mk_bin(BinOp::Or, s_le(e.count, mk_int(0)),
                   s_and(within(e.start, dsyn), within(std::move(last), dsyn))),
            "bounds", e.start->pos);
      continue;
    }
    check(slice_inside(e.start, e.count, e.stride, dsyn), "bounds", e.start->pos);
  }
  std::set<std::string> vars;
  for (const Stmt& st : checks)
    sexp_vars(*std::get<SAssume>(st.node).cond, vars);
  for (const std::string& v : vars)
    need(B, c, pt.P, fam, v, Property::Bounds, lift, solver);
  rule = "blocked by a statement that may fail";
  for (size_t d = c; d < pt.P; ++d)
    if (!lift.count(d) && conflict(Fail::Other, may_fail(B.stmts[d], solver, 0)))
      return "the statement at " + at(B.stmts[d].pos) +
             " may end the run with another error before the update";
  out = std::move(checks);
  return "";
}

void Pass::check_outside_uses(const Point& pt, size_t c, size_t if_result, size_t outside,
                              const std::map<std::string, SymLmad>& fam, const SymLmad& L,
                              ScAttempt& a) {
  Body& B = *pt.B;
  auto& f = std::get<EIf>(std::get<SLet>(B.stmts[c].node).exp.node);
  const std::string where = "the if at " + at(B.stmts[c].pos);
  auto refuse = [&](const std::string& n, Pos p, const std::string& how) {
    throw Refused{Property::CreationPoint,
                  n + ", which a branch of " + where +
                      " returns and which is built in the destination "
                      "from its creation, is " +
                      how + " at " + at(p),
                  "branch result used otherwise"};
  };
  auto results = [&](const Body& b, Pos p) {
    for (const Name& r : b.results)
      if (fam.count(r.s)) refuse(r.s, p, "returned by a nested body");
  };
  std::function<void(const Body&)> scan = [&](const Body& body) {
    for (const Stmt& st : body.stmts) {
      const auto* l = std::get_if<SLet>(&st.node);
      if (!l) continue;
      auto only_read = [&](const Name& n) {
        if (fam.count(n.s)) refuse(n.s, st.pos, "viewed, updated or passed on");
      };
      std::visit(Overloaded{[&](const EIndex& x) {
                              const auto& xt = arr(x.arr.s);
                              bool element = xt && x.entries.size() == xt->dims.size();
                              for (const Entry& e : x.entries)
                                element = element && !e.count;
                              if (!element) only_read(x.arr);
                            },
                            [&](const ELmadSlice& x) { only_read(x.arr); },
                            [&](const ETranspose& x) { only_read(x.arr); },
                            [&](const EUpdate& x) {
                              only_read(x.arr);
                              if (const auto* v = std::get_if<Name>(&x.value.v)) only_read(*v);
                            },
                            [&](const EUpdateLmad& x) {
                              only_read(x.arr);
                              only_read(x.value);
                            },
                            [&](const ELoop& x) {
                              for (const Name& n : x.inits)
                                only_read(n);
                              results(x.body, st.pos);
                            },
                            [&](const EKernel& x) { results(x.body, st.pos); },
                            [&](const EIf& x) {
                              results(x.then_body, st.pos);
                              results(x.else_body, st.pos);
                            },
                            [](const auto&) {}},
                 l->exp.node);
      each_body(const_cast<Stmt&>(st), [&](Body& in) { scan(in); });
    }
  };
  const Body* brs[2] = {&f.then_body, &f.else_body};
  const std::set<std::string> dmems = block_names(pt.ysm);
  Summary U;
  for (size_t k = 0; k < 2; ++k) {
    scan(*brs[k]);
    for (size_t j = 0; j < brs[k]->results.size(); ++j)
      if (fam.count(brs[k]->results[j].s) && !(k == outside && j == if_result))
        refuse(brs[k]->results[j].s, B.stmts[c].pos, "returned as another result");
    for (const Stmt& st : brs[k]->stmts)
      uses(st, dmems, fam, U);
  }
  check({Acc{L, "the place of the array " + brs[outside]->results[if_result].s +
                    " returned by a branch"}},
        U, solver_for(facts_at(pt.frames, c)), Property::NonOverlap, a);
}

} // namespace funmem::sc
