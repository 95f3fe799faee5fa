// Short-circuiting: Access summaries (U, W) and the non-overlap checks (6.4.3, 6.6) (see pass.h).
#include "analysis/short_circuit/pass.h"

namespace funmem::sc {

// ------------------------------------------------------------ access summaries

/// U: the uses of blocks that may be the destination's (`dest`), by arrays other
/// than the members of `fam`, in one statement; nested bodies aggregated with EXPAND.
void Pass::uses(const Stmt& s, const std::set<std::string>& dest,
                const std::map<std::string, SymLmad>& fam, Summary& U) {
  const auto* l = std::get_if<SLet>(&s.node);
  if (!l) return;
  Pos pos = s.pos;
  auto place = [&](const std::string& a) -> const ArrT* {
    if (auto it = also_.find(a); it != also_.end()) return &it->second;
    if (fam.count(a)) return nullptr;
    const auto& t = arr(a);
    if (!t || !dest.count(t->mem)) return nullptr;
    return &*t;
  };
  auto read = [&](const std::string& a) {
    if (auto t = place(a))
      U.accs.push_back({t->lay, "read of " + a + " at " + at(pos), SIZE_MAX, a});
  };
  auto write_pat = [&](const char* what) {
    for (const Binding& b : l->pats)
      if (auto t = place(b.name.s))
        U.accs.push_back({t->lay, std::string(what) + " writing " + b.name.s + " at " + at(pos),
                          SIZE_MAX, b.name.s});
  };
  auto atom = [&](const AtomArg& a) {
    if (const auto* n = std::get_if<Name>(&a.v)) read(n->s);
  };
  auto aggregate = [&](Summary in, const Body& body, const std::string& iter, const SExpP& bound,
                       Pos where) {
    localize(in, body);
    if (in.undet && !U.undet) U.undet = in.undet;
    auto b = bound ? to_poly(*bound) : std::nullopt;
    for (const Acc& a : in.accs) {
      if (!mentions(a.l, iter)) {
        U.accs.push_back(a);
        continue;
      }
      std::optional<SymLmad> e = b ? lmad_expand(iter, Poly(0), *b, a.l) : std::nullopt;
      if (!e) {
        if (!U.undet)
          U.undet = a.what + " is not affine in " + iter + " (the loop at " + at(where) + ")";
        continue;
      }
      U.accs.push_back({*e, a.what + " over all " + iter, SIZE_MAX, a.array});
    }
  };
  std::visit(
      Overloaded{
          [&](const EIndex& x) {
            auto t = place(x.arr.s);
            if (!t || x.entries.size() != t->dims.size()) return;
            for (const Entry& e : x.entries)
              if (!e.is_index()) return;
            U.accs.push_back({lmad_index(t->lay, sym_entries(x.entries)),
                              "read of " + x.arr.s + " at " + at(pos), SIZE_MAX, x.arr.s});
          },
          [&](const ECopy& x) {
            read(x.arr.s);
            write_pat("copy");
          },
          [&](const EConcat& x) {
            read(x.a.s);
            read(x.b.s);
            write_pat("concat");
          },
          [&](const EIota&) { write_pat("iota"); },
          [&](const EReplicate& x) {
            atom(x.value);
            write_pat("replicate");
          },
          [&](const EUpdate& x) {
            atom(x.value);
            if (auto t = place(x.arr.s))
              U.accs.push_back({lmad_index(t->lay, sym_entries(x.entries)),
                                "update of " + x.arr.s + " at " + at(pos), SIZE_MAX, x.arr.s});
          },
          [&](const EUpdateLmad& x) {
            read(x.value.s);
            if (auto t = place(x.arr.s))
              U.accs.push_back({lmad_compose(t->lay, sym_lmad(x.lmad)),
                                "update of " + x.arr.s + " at " + at(pos), SIZE_MAX, x.arr.s});
          },
          [&](const EKernel& x) {
            Summary in;
            for (const Stmt& st : x.body.stmts)
              uses(st, dest, fam, in);
            result_reads(x.body, dest, fam, pos, in);
            aggregate(in, x.body, x.iter.s, x.bound, pos);
            write_pat("kernel");
          },
          [&](const ELoop& x) {
            Summary in;
            for (const Stmt& st : x.body.stmts)
              uses(st, dest, fam, in);
            aggregate(in, x.body, x.iter.s, x.bound, pos);
          },
          [&](const EIf& x) {
            for (const Stmt& st : x.then_body.stmts)
              uses(st, dest, fam, U);
            for (const Stmt& st : x.else_body.stmts)
              uses(st, dest, fam, U);
          },
          [](const auto&) {}},
      l->exp.node);
}

/// The reads of a kernel body's results (each thread copies its result into its row),
/// where they live in the destination's blocks.
void Pass::result_reads(const Body& body, const std::set<std::string>& dest,
                        const std::map<std::string, SymLmad>& fam, Pos pos, Summary& U) {
  for (const Name& r : body.results) {
    const ArrT* t = nullptr;
    if (auto it = also_.find(r.s); it != also_.end())
      t = &it->second;
    else if (const auto& rt = arr(r.s); rt && !fam.count(r.s) && dest.count(rt->mem))
      t = &*rt;
    if (t)
      U.accs.push_back(
          {t->lay, "read of " + r.s + " (kernel result) at " + at(pos), SIZE_MAX, r.s});
  }
}

/// Uses inside a body of a kernel or loop, seen from outside it: names the body
/// computes differ between iterations, so integer definitions are substituted and an
/// access still naming a local is undeterminable.
void Pass::localize(Summary& s, const Body& body) {
  std::set<std::string> locals;
  bound_in(body, locals);
  std::map<std::string, Poly> defs;
  for (const Stmt& st : body.stmts)
    if (const auto* l = std::get_if<SLet>(&st.node))
      if (l->pats.size() == 1)
        if (const auto* e = std::get_if<EScalar>(&l->exp.node))
          if (auto p = to_poly(*e->e)) defs[l->pats[0].name.s] = *p;
  std::vector<Acc> kept;
  for (Acc a : s.accs) {
    for (int round = 0; round < 16; ++round) {
      std::map<std::string, Poly> sub;
      for (const std::string& v : lmad_free_vars(a.l))
        if (defs.count(v)) sub[v] = defs.at(v);
      if (sub.empty()) break;
      a.l = lmad_substitute(a.l, sub);
    }
    std::optional<std::string> local;
    for (const std::string& v : lmad_free_vars(a.l))
      if (locals.count(v)) local = v;
    if (local) {
      if (!s.undet)
        s.undet = a.what + " depends on " + *local + ", which each iteration computes itself";
      continue;
    }
    kept.push_back(std::move(a));
  }
  s.accs = std::move(kept);
}

/// U^{!=i}: the uses of the other iterations j != i of `iter < bound`.
Summary Pass::others(const Summary& in, const std::string& iter, const SExpP& bound, bool before) {
  Summary out;
  out.undet = in.undet;
  auto b = bound ? to_poly(*bound) : std::nullopt;
  const std::string j = fresh_name(names(), iter + "_other");
  Poly i = Poly::var(iter);
  for (const Acc& a : in.accs) {
    if (!mentions(a.l, iter)) {
      out.accs.push_back({a.l, a.what + (before ? " (in every thread)" : " (in every iteration)"),
                          SIZE_MAX, a.array});
      continue;
    }
    SymLmad lj = lmad_substitute(a.l, {{iter, Poly::var(j)}});
    auto lo = b ? lmad_expand(j, Poly(0), i, lj) : std::nullopt;
    auto hi = b ? lmad_expand(j, i + Poly(1), *b - i - Poly(1), lj) : std::nullopt;
    if (!lo || !hi) {
      if (!out.undet) out.undet = a.what + " is not affine in " + iter;
      continue;
    }
    const char* who = before ? " by threads " : " in iterations ";
    if (before) out.accs.push_back({*lo, a.what + who + iter + "' < " + iter, SIZE_MAX, a.array});
    out.accs.push_back({*hi, a.what + who + iter + "' > " + iter, SIZE_MAX, a.array});
  }
  return out;
}

/// 6.6.1 for a loop carrying the source: within an iteration, each write of an alias
/// against the uses after it; the writes of iteration i against the uses of the later
/// iterations (U^{>i}); all its writes against the uses after the loop (U). Returns
/// the writes of all iterations.
std::vector<Acc> Pass::loop_checks(const Carried& cl, const ELoop& x,
                                   const std::set<std::string>& dmems,
                                   const std::map<std::string, SymLmad>& fam, const Summary& U,
                                   const std::vector<Frame>& frames, ScAttempt& a) {
  // The facts before each statement of an iteration, from those at the loop on.
  std::vector<std::vector<Formula>> before(x.body.stmts.size() + 1);
  before[0] = facts_at(frames, cl.d);
  range_facts(x.iter.s, x.bound, before[0]);
  for (size_t bd = 0; bd < x.body.stmts.size(); ++bd) {
    before[bd + 1] = before[bd];
    for (Formula& f : facts_of(x.body.stmts[bd]))
      before[bd + 1].push_back(std::move(f));
  }
  poly_defs(x.body, x.body.stmts.size(), defs_, integer_fn());
  auto in_iteration = [&](const Acc& u) -> Solver& {
    if (u.at >= before.size())
      throw Refused{Property::Summary, "internal: " + u.what + " has no program point"};
    return solver_for(before[u.at]);
  };
  Summary later;
  for (size_t bd = x.body.stmts.size(); bd-- > 0;) {
    std::vector<Acc> W;
    for (const auto& [i, w] : cl.writes)
      if (i == bd) W.push_back(w);
    check(W, later, in_iteration, Property::NonOverlap, a);
    uses_at(x.body.stmts[bd], bd, dmems, fam, later);
  }
  localize(later, x.body);
  Summary Wi;
  for (const auto& [i, w] : cl.writes)
    Wi.accs.push_back(w);
  localize(Wi, x.body);
  if (Wi.undet)
    throw Refused{Property::Loops, "the writes of the loop at " + at(x.body.pos) +
                                       " cannot be summarised: " + *Wi.undet};
  // A later iteration runs once iteration i has ended: every fact of its body holds.
  check(Wi.accs, others(later, x.iter.s, x.bound, false), solver_for(before.back()),
        Property::LaterIterations, a);
  std::vector<Acc> total;
  auto b = x.bound ? to_poly(*x.bound) : std::nullopt;
  for (const Acc& w : Wi.accs) {
    if (!mentions(w.l, x.iter.s)) {
      total.push_back(w);
    } else {
      auto e = b ? lmad_expand(x.iter.s, Poly(0), *b, w.l) : std::nullopt;
      if (!e) throw Refused{Property::Loops, w.what + " is not affine in " + x.iter.s};
      total.push_back({*e, w.what + " over all " + x.iter.s});
    }
    total.back().at = cl.d;
  }
  check(total, U, at_use(frames), Property::NonOverlap, a);
  return total;
}

ProveResult Pass::disjoint(const SymLmad& l1, const SymLmad& l2, Solver& solver, ScAttempt& a) {
  Account counted{solver, a};
  return prove_disjoint(lmad_substitute(l1, defs_), lmad_substitute(l2, defs_), solver,
                        opt_.prover);
}

bool Pass::in_a_block(const Acc& u, Solver& solver) {
  if (opt_.broken_outside_block || also_.count(u.array)) return true; // (or deliberately broken)
  // An access happens only to an array that exists (or is being made with its sizes
  // checked).
  InsideQuery q{solver, [](const std::string&) { return true; }};
  return (!u.array.empty() && shown_inside(u.array, q)) || wrap_free(u.l, solver);
}

bool Pass::wrap_free(const SymLmad& l, Solver& solver) {
  SymLmad q = lmad_substitute(l, defs_);
  auto [slot, fresh] = wrap_cache_.try_emplace({q.to_string(), &solver}, false);
  if (!fresh) return slot->second;
  try {
    const Poly limit(int64_t{1} << 62);
    auto ext = lmad_extent(q, [&](const Formula& f) { return solver.proves(f); });
    slot->second = ext && solver.proves(ext->within(Poly(0) - limit, limit));
  } catch (const SymbolicOverflow&) {
    slot->second = false;
  }
  return slot->second;
}

/// Every write must be disjoint from every use; the prover decides.
void Pass::check(const std::vector<Acc>& W, const Summary& U, const SolverOf& solver_of,
                 Property rule, ScAttempt& a) {
  if (W.empty()) return;
  if (rule == Property::NonOverlap && opt_.broken_no_overlap) return; // deliberately broken
  if (U.undet)
    throw Refused{rule, "the uses of " + a.dest_mem + " cannot be summarised: " + *U.undet +
                            " (undeterminable summary)"};
  for (const Acc& w : W)
    for (const Acc& u : U.accs) {
      // The writes lie in the destination's place, inside its block (check_bounds).
      if (!in_a_block(u, solver_of(u)))
        throw Refused{Property::Bounds,
                      u.what + " " + u.l.to_string() +
                          " is not shown inside a block nor within +-2^62: its addresses may "
                          "wrap around 2^64, where the prover's integers do not",
                      "address may wrap"};
      ProveResult r = disjoint(w.l, u.l, solver_of(u), a);
      ScProof pr{property_rule(rule), w.what + " " + w.l.to_string(),
                 u.what + " " + u.l.to_string(), summary(r)};
      a.proofs.push_back(pr);
      if (r.answer != Answer::Disjoint)
        throw Refused{rule, w.what + " " + w.l.to_string() + " may overlap the " +
                                (rule == Property::NonOverlap ? "later " : "") + u.what + " " +
                                u.l.to_string() + ": " + summary(r)};
    }
}

} // namespace funmem::sc
