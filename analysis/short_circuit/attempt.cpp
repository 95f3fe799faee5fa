// Short-circuiting: One attempt, as the numbered steps of thesis ch. 6, and applying it (see
// pass.h).
#include "analysis/short_circuit/pass.h"

namespace funmem::sc {

void Pass::analyse(Point& pt, ScAttempt& a) {
  Plan p = plan_for(pt, a);
  std::set<std::string> old_mems;
  apply(p, old_mems, a);
  for (const std::string& m : old_mems)
    if (m != pt.ysm && remove_alloc_if_dead(m)) a.removed.push_back(m);
}

/// Steps 1 to 7 of an attempt: every check, no change; throws Refused.
Pass::Plan Pass::plan_for(const Point& pt, ScAttempt& a) {
  // A branch's plan is made in the middle of its if's: the if's carried loops wait.
  std::vector<Carried> outer_carried = std::move(carried_);
  std::map<std::string, std::string> outer_fam_mem = std::move(fam_mem_);
  std::map<std::string, ArrT> outer_also = std::move(also_);
  carried_.clear();
  fam_mem_.clear();
  also_.clear();
  for (const auto& [n, l] : pt.also)
    if (const auto& t = arr(n)) {
      ArrT at_dest = *t;
      at_dest.mem = pt.ysm;
      at_dest.lay = l;
      also_[n] = at_dest;
    }
  Plan out = plan_here(pt, a);
  out.carried = std::move(carried_);
  out.fam_mem = std::move(fam_mem_);
  carried_ = std::move(outer_carried);
  fam_mem_ = std::move(outer_fam_mem);
  also_ = std::move(outer_also);
  return out;
}

Pass::Plan Pass::plan_here(const Point& pt, ScAttempt& a) {
  Plan plan;
  plan.B = pt.B;
  plan.ysm = pt.ysm;
  Trace t;
  find_creation(pt, t);
  if (!pt.branch_result) last_creation_ = t.c;
  a.creation = t.root + " by " + creation_text(t.creation(pt), pt.B->stmts[t.c].pos);
  plan.c = t.c;
  follow_aliases(pt, t);
  check_last_use(pt, t);
  set_defs(pt.frames, pt.P);
  check_needed_names(pt, t, a);
  check_shared_blocks(pt, t);
  // An `if` creates the source: each branch builds its result where the source goes,
  // as if the end of the branch were a point of its own.
  const size_t bounds_at = t.if_result ? plan_branches(pt, t, plan, a) : t.c;
  check_bounds(pt, t, bounds_at, plan, a);
  std::vector<Acc> loop_writes = check_non_overlap(pt, t, a);
  check_enclosing_kernel(pt, t, loop_writes, a);
  check_injective(pt, t, a); // last: the costliest, and the rarest to fail
  plan.fam = std::move(t.fam);
  plan.lift = std::move(t.lift);
  plan.root = t.root;
  return plan;
}

/// Step 1. Back from the point to the creation of x, reversing transpositions.
void Pass::find_creation(const Point& pt, Trace& tr) {
  Body& B = *pt.B;
  std::string cur = pt.x;
  SymLmad L = pt.lnew;
  for (;;) {
    auto it = ix_.site.find(cur);
    if (pt.branch_result && (it == ix_.site.end() || it->second.first != &B))
      throw Refused{Property::CreationPoint, cur +
                                                 " comes from outside the branch that returns it; "
                                                 "each branch of the if must create its result"};
    if (it == ix_.site.end() || it->second.first != &B || it->second.second >= pt.P)
      throw Refused{
          Property::CreationPoint,
          cur + " is " +
              (it == ix_.site.end() ? std::string("a parameter")
                                    : "defined outside the body of the point") +
              "; only arrays created there by kernel, iota, replicate, copy, "
              "scratch, concat or an if whose branches create them can be built in place"};
    size_t d = it->second.second;
    const Stmt& st = B.stmts[d];
    const SLet& l = std::get<SLet>(st.node);
    std::optional<std::string> next;
    bool created = false;
    std::visit(
        Overloaded{[&](const ETranspose& t) {
                     L = lmad_transpose(L);
                     next = t.arr.s;
                   },
                   [&](const EUpdate& u) { next = u.arr.s; },
                   [&](const EUpdateLmad& u) { next = u.arr.s; },
                   [&](const EIndex& v) {
                     throw Refused{Property::ChangeOfLayout,
                                   cur + " is a slice of " + v.arr.s + " (at " + at(st.pos) +
                                       "): only transpositions can be reversed"};
                   },
                   [&](const ELmadSlice& v) {
                     throw Refused{Property::ChangeOfLayout,
                                   cur + " is an LMAD slice of " + v.arr.s + " (at " + at(st.pos) +
                                       "): only transpositions can be reversed"};
                   },
                   [&](const ELoop& lp) {
                     size_t j = 0;
                     while (j < l.pats.size() && l.pats[j].name.s != cur)
                       ++j;
                     auto is_mem = [](const Binding& b) {
                       return b.type && b.type->kind == Type::Kind::Mem;
                     };
                     bool in_place = j >= 1 && j < l.pats.size() && j < lp.params.size() &&
                                     j < lp.inits.size() && j < lp.body.results.size() &&
                                     is_mem(l.pats[j - 1]) && is_mem(lp.params[j - 1]) &&
                                     lp.params[j].type && lp.params[j].type->ann &&
                                     lp.params[j].type->ann->mem.s == lp.params[j - 1].name.s &&
                                     lp.body.results[j - 1].s == lp.params[j - 1].name.s;
                     if (in_place) {
                       const auto& init = arr(lp.inits[j].s);
                       in_place = init && init->mem == lp.inits[j - 1].s;
                     }
                     if (!in_place)
                       throw Refused{Property::CreationPoint,
                                     cur + " is a result of the loop at " + at(st.pos) +
                                         ", which does not carry it in its own block (an array "
                                         "creation point or an in-place loop is needed)"};
                     carried_.push_back(Carried{&lp, d, j, {}});
                     fam_mem_[lp.params[j].name.s] = lp.params[j - 1].name.s;
                     fam_mem_[cur] = l.pats[j - 1].name.s;
                     next = lp.inits[j].s;
                   },
                   [&](const EIf&) {
                     size_t j = 0;
                     while (j < l.pats.size() && l.pats[j].name.s != cur)
                       ++j;
                     const auto& t = j < l.pats.size() ? l.pats[j].type : std::nullopt;
                     if (j == 0 || !t || !t->ann || !l.pats[j - 1].type ||
                         l.pats[j - 1].type->kind != Type::Kind::Mem ||
                         t->ann->mem.s != l.pats[j - 1].name.s)
                       throw Refused{Property::CreationPoint,
                                     cur + ", a result of the if at " + at(st.pos) +
                                         ", is not returned with its block"};
                     // The if keeps returning a block for its result: each branch's.
                     fam_mem_[cur] = l.pats[j - 1].name.s;
                     tr.if_result = j;
                     created = true;
                   },
                   [&](const auto&) { created = true; }},
        l.exp.node);
    if (created) {
      tr.c = d;
      break;
    }
    cur = *next;
  }
  tr.root = cur;
  tr.L = L;
}

/// Step 2. Forward: the aliases of the root up to the point, with projected LMADs.
void Pass::follow_aliases(const Point& pt, Trace& t) {
  Body& B = *pt.B;
  t.fam = {{t.root, t.L}};
  for (size_t d = t.c + 1; d < pt.P; ++d)
    family(B.stmts[d], t.fam, false, d, t.fam_writes);
  if (!t.fam.count(pt.x) || !(t.fam.at(pt.x) == pt.lnew))
    throw Refused{Property::ChangeOfLayout, "the aliases of " + t.root + " do not lead to " + pt.x};
}

/// The blocks an attempt takes over hold nothing but the source's aliases: a loop's or an
/// if's block that will hold the destination's (another array there would land on the
/// destination's live cells, or keep a block type that no longer matches), and the
/// source's own block (another array there may read cells the source's creation wrote
/// over, which built elsewhere it would not).
void Pass::check_shared_blocks(const Point& pt, const Trace& t) {
  if (opt_.broken_shared_block) return; // deliberately broken
  // Created in a kernel in a block from outside it: every thread writes that block, so
  // the source's creation races (or its threads' places must be shown apart), and built
  // in each thread's own place the race would be gone from the program.
  if (const auto& rt = arr(t.root)) {
    size_t inner = pt.frames.size();
    for (size_t f = 0; f < pt.frames.size(); ++f)
      if (pt.frames[f].kind == Frame::Kind::Kernel) inner = f;
    if (inner < pt.frames.size()) {
      auto site = ix_.site.find(rt->mem);
      bool inside = false;
      for (size_t f = inner; f < pt.frames.size() && site != ix_.site.end(); ++f)
        inside = inside || site->second.first == pt.frames[f].body;
      if (!inside)
        throw Refused{Property::CreationPoint,
                      t.root + " is created in each thread of the kernel around it in " + rt->mem +
                          ", a block from outside the kernel that every thread writes",
                      "block shared by the threads"};
    }
  }
  std::set<std::string> blocks;
  for (const auto& [n, m] : fam_mem_)
    blocks.insert(m);
  if (const auto& rt = arr(t.root)) blocks.insert(rt->mem);
  for (const auto& [n, b] : ix_.binding) {
    if (t.fam.count(n) || !b->type || !b->type->ann || !blocks.count(b->type->ann->mem.s)) continue;
    throw Refused{Property::CreationPoint,
                  n + " also lives in " + b->type->ann->mem.s +
                      ", a block the source's aliases "
                      "hold; moving them would move it, or leave it beside cells they wrote",
                  "block shared with other arrays"};
  }
}

/// Step 3. Last use: no alias of x after the point.
void Pass::check_last_use(const Point& pt, const Trace& t) {
  const Body& B = *pt.B;
  const std::string& x = pt.x;
  std::set<std::string> after, mems;
  for (size_t d = pt.P + 1; d < B.stmts.size(); ++d)
    stmt_mentions(B.stmts[d], after, mems);
  if (pt.branch_result) { // the branch's other results
    for (size_t k = 0; k < B.results.size(); ++k)
      if (k != *pt.branch_result) after.insert(B.results[k].s);
  } else if (pt.kind != ScKind::KernelResult) {
    for (const Name& r : B.results)
      after.insert(r.s);
  }
  // `concat x x`: the point itself reads x for the other half, which lies beside
  // the half x is built in.
  if (!pt.other.empty() && pt.other != x) after.insert(pt.other);
  for (const auto& [n, _] : t.fam)
    if (after.count(n))
      throw Refused{Property::LastUse, (n == x ? x : n + " (an alias of " + x + ")") +
                                           " is used after the point, so its memory is still live"};
}

/// Step 4. 6.2 (1) and 6.4.2: the destination's memory and the names of the projected
/// LMAD must exist at the creation; later definitions are lifted when they can be. A
/// source whose own layout sends several elements to one place (a zero stride, or
/// strides that overlap) overwrites or races on them at its creation; built elsewhere,
/// that would be gone from the program.
void Pass::check_needed_names(const Point& pt, Trace& t, ScAttempt& a) {
  Solver& csolver = solver_for(facts_at(pt.frames, t.c));
  need(*pt.B, t.c, pt.P, t.fam, pt.ysm, Property::DestinationMemory, t.lift, csolver);
  for (const std::string& v : lmad_free_vars(pt.lnew))
    need(*pt.B, t.c, pt.P, t.fam, v, Property::Projection, t.lift, csolver);
  // The source's own layout must send distinct elements to distinct cells: otherwise
  // its creation overwrites (or races on) its own elements, and built elsewhere it would
  // not.
  if (const auto& rt = arr(t.root))
    require_injective(lmad_substitute(rt->lay, defs_),
                      t.root + "'s own layout " + rt->lay.to_string(), Property::CreationPoint,
                      csolver, a);
  // So must the destination's: a place injective on its own may still share cells with
  // the rest of a destination that overlaps itself (`concat x x` into rows that overlap).
  if (const auto& dt = arr(pt.dest))
    require_injective(lmad_substitute(dt->lay, defs_),
                      pt.dest + "'s own layout " + dt->lay.to_string(), Property::CreationPoint,
                      csolver, a);
  // A scratch built in the destination would keep the destination's old values where
  // the value semantics has zeros: apply() turns it into a replicate of zero, which
  // only exists for one dimension.
  if (std::holds_alternative<EScratch>(t.creation(pt).exp.node)) {
    const auto& rt = arr(t.root);
    if (!rt || rt->dims.size() != 1)
      throw Refused{Property::CreationPoint,
                    t.root + " is a scratch of more than one dimension: built in place it would "
                             "keep the destination's old values where the value semantics has "
                             "zeros, and only a one-dimensional one can become a replicate of zero",
                    "scratch of more than one dimension"};
    // Its size is evaluated over the integers, the replicate's count as an expression:
    // a term that overflows where the size does not (a*c - b*c) would fail the output.
    const SExpP& n = t.creation(pt).pats.at(0).type->dims.at(0);
    if (sexp_may_fail(*n, csolver))
      throw Refused{Property::CreationPoint,
                    t.root + " is a scratch whose size " + print_sexp(*n) +
                        " may overflow as the count of a replicate of zero, where as its size it "
                        "does not",
                    "scratch count may fail"};
  }
}

/// The creation is an `if`: a plan for each branch's result. Returns the statement whose
/// facts show the bounds (a branch's result created before the if: its creation).
size_t Pass::plan_branches(const Point& pt, const Trace& t, Plan& plan, ScAttempt& a) {
  Body& B = *pt.B;
  const size_t c = t.c;
  const SymLmad& L = t.L;
  const size_t if_result = *t.if_result;
  size_t bounds_at = c;
  auto& f = std::get<EIf>(std::get<SLet>(B.stmts[c].node).exp.node);
  Body* brs[2] = {&f.then_body, &f.else_body};
  // A branch may return an array created before the if (in this body): it is then
  // built in place from its creation, as for a point at the if, and the other
  // branch's uses of it count as uses of the destination. Only one may: two such
  // arrays in one place would overwrite each other.
  std::optional<size_t> outside;
  for (size_t k = 0; k < 2; ++k) {
    if (if_result >= brs[k]->results.size()) throw Refused{Property::CreationPoint, "malformed if"};
    auto it = ix_.site.find(brs[k]->results[if_result].s);
    if (it != ix_.site.end() && it->second.first == brs[k]) continue;
    if (outside)
      throw Refused{Property::CreationPoint, "both branches of the if at " + at(B.stmts[c].pos) +
                                                 " return arrays created outside them; in one "
                                                 "place, one would overwrite the other"};
    outside = k;
  }
  std::optional<Plan> outer_branch;
  if (outside) {
    Point sp = pt;
    sp.P = c;
    sp.x = brs[*outside]->results[if_result].s;
    sp.lnew = L;
    sp.entries.reset();
    sp.inner.reset();
    sp.syn_entries = nullptr;
    sp.other.clear();
    sp.frames.back().idx = c;
    outer_branch = plan_for(sp, a);
    bounds_at = outer_branch->c;
    // What the place needs must exist at that creation: defined before the if (a
    // definition after it is lifted to the if at most).
    std::vector<std::string> needed = lmad_free_vars(L);
    needed.push_back(pt.ysm);
    for (const std::string& v : needed) {
      auto it = ix_.site.find(v);
      if (it != ix_.site.end() && it->second.first == &B && it->second.second >= c)
        throw Refused{Property::DestinationMemory,
                      v + " is defined after the if at " + at(B.stmts[c].pos) + ", but " + sp.x +
                          ", which a branch returns, is created before it"};
    }
    if (!opt_.broken_outside_uses) // (or deliberately broken)
      check_outside_uses(pt, c, if_result, *outside, outer_branch->fam, L, a);
  }
  for (size_t k = 0; k < 2; ++k) {
    Body* br = brs[k];
    if (outside && *outside == k) {
      plan.branches.push_back(*outer_branch);
      continue;
    }
    Point sp = pt;
    if (outer_branch && !opt_.broken_branch_uses) // (or deliberately broken)
      sp.also = outer_branch->fam;
    sp.B = br;
    sp.P = br->stmts.size();
    sp.x = br->results[if_result].s;
    sp.lnew = L;
    sp.entries.reset();
    sp.inner.reset();
    sp.other.clear();
    sp.branch_result = if_result;
    sp.frames.back().idx = c;
    sp.frames.push_back(Frame{br, sp.P, Frame::Kind::Branch, "", {}});
    plan.branches.push_back(plan_for(sp, a));
  }
  plan.if_result = if_result;
  plan.outside = outside;
  return bounds_at;
}

/// Step 5. Bounds: the place must lie inside the destination. The source is then built
/// there from its creation on, so only the facts that hold at the creation (and the
/// definitions lifted to it) may show it: an `assume` between the creation and the point
/// runs after the first write.
void Pass::check_bounds(const Point& pt, Trace& t, size_t bounds_at, Plan& plan, ScAttempt& a) {
  Body& B = *pt.B;
  std::vector<Formula> cfacts =
      facts_at(pt.frames, opt_.broken_late_facts ? pt.P : bounds_at); // (deliberately broken)
  for (size_t d : t.lift)
    for (Formula& f : facts_of(B.stmts[d]))
      cfacts.push_back(std::move(f));
  t.cfacts = cfacts;
  // A run-time check between the creation and the point (placed there by an earlier
  // point, at the destination's own creation) is what keeps the destination's place
  // inside its block: the source's first write would come before it, and where the
  // check fails, write outside the block first.
  if (!opt_.broken_chain_check && pt.P <= B.stmts.size())
    for (size_t d = t.c + 1; d < pt.P; ++d)
      if (const auto* chk = std::get_if<SAssume>(&B.stmts[d].node); chk && chk->kind != "assume")
        throw Refused{Property::Bounds,
                      "the place of " + pt.dest + " in its block rests on the run-time check at " +
                          at(B.stmts[d].pos) + ", after the creation of " + pt.x,
                      "destination checked after the creation"};
  Solver& bsolver = solver_for(cfacts);
  Account acc_b{bsolver, a};
  // The prover's questions take each array inside its block: an array reaching outside
  // its block ends the run where it is written, and built elsewhere it would not.
  // The arrays bound before the creation exist there; one made later (the destination
  // of a copy, a concat, a kernel) may not, and then its sizes may be anything.
  auto exists = [&](const std::string& n) {
    auto site = ix_.site.find(n);
    if (site == ix_.site.end()) return true; // a parameter
    for (size_t f = 0; f < pt.frames.size(); ++f)
      if (site->second.first == pt.frames[f].body)
        return site->second.second < (f + 1 == pt.frames.size() ? bounds_at : pt.frames[f].idx);
    return false;
  };
  InsideQuery q{bsolver, exists};
  if (!opt_.broken_outside_block && !shown_inside(pt.dest, q)) // (deliberately broken)
    throw Refused{Property::Bounds,
                  pt.dest + "'s layout is not shown inside its block at the creation of " + pt.x,
                  "destination not shown inside its block"};
  // The source's creation checks its sizes before it writes anything.
  InsideQuery qr{bsolver, [](const std::string&) { return true; }};
  if (!opt_.broken_outside_block && !shown_inside(t.root, qr))
    throw Refused{Property::Bounds,
                  t.root + "'s layout is not shown inside its own block at its creation",
                  "source not shown inside its block"};
  if (pt.kind == ScKind::KernelResult && pt.frames.back().kind == Frame::Kind::Kernel) {
    std::vector<Formula> range;
    range_facts(pt.frames.back().iter, pt.frames.back().bound, range);
    plan.placed = {pt.dest, Formula::conj(range)};
  } else {
    plan.placed = {pt.dest, Formula::conj({})};
  }
  if (auto bd = bounds(pt, bsolver)) {
    plan.placed->second = bd->whole;
    const std::map<std::string, Poly>& defs = defs_;
    bool ok = !bd->positive.empty();
    for (const Poly& d : bd->positive)
      ok = ok && prove_positive(d.substitute(defs), pt.frames, bsolver);
    if (ok || bsolver.proves(bd->whole.substitute(defs))) {
      a.proofs.push_back({"bounds", "place " + pt.lnew.to_string(), "shape of " + pt.dest,
                          "inside: " + bd->whole.to_string()});
    } else {
      const char* rule = nullptr;
      std::string why = runtime_checks(pt, t.c, t.fam, t.lift, bsolver, plan.checks, rule);
      if (!why.empty())
        throw Refused{Property::Bounds,
                      "the updated place of " + pt.dest + " is not provably inside it (" +
                          bd->whole.to_string() +
                          "), and its run-time check cannot move to the creation: " + why,
                      rule};
      std::string conds;
      for (const Stmt& st : plan.checks)
        conds += (conds.empty() ? "" : "; ") + print_sexp(*std::get<SAssume>(st.node).cond);
      a.proofs.push_back({"bounds", "place " + pt.lnew.to_string(), "shape of " + pt.dest,
                          "checked at run time at the creation: " + conds});
    }
  }
}

/// Step 6. 6.4.3: bottom-up from the point to the creation; for a kernel creating the
/// source, 6.6.2 (thread i writes fix(L, i) at its end; no other thread may use it).
/// Returns the writes of loops carrying the source (step 7 needs them).
std::vector<Acc> Pass::check_non_overlap(const Point& pt, const Trace& t, ScAttempt& a) {
  Body& B = *pt.B;
  const size_t c = t.c;
  const SLet& cl = t.creation(pt);
  const std::map<std::string, SymLmad>& fam = t.fam;
  const std::set<std::string> dmems = destination_blocks(pt);
  std::vector<Acc> loop_writes;
  const SolverOf at_u = at_use(pt.frames);
  Summary U;
  for (size_t d = pt.P; d-- > c + 1;) {
    std::vector<Acc> W;
    for (const auto& [dd, w] : t.fam_writes)
      if (dd == d) W.push_back(w);
    check(W, U, at_u, Property::NonOverlap, a);
    for (const Carried& carry : carried_)
      if (carry.d == d) {
        const ELoop& lp = std::get<ELoop>(std::get<SLet>(B.stmts[d].node).exp.node);
        for (Acc& w : loop_checks(carry, lp, dmems, fam, U, pt.frames, a))
          loop_writes.push_back(std::move(w));
      }
    uses_at(B.stmts[d], d, dmems, fam, U);
  }
  const Acc whole = whole_creation(pt, t);
  if (const auto* k = std::get_if<EKernel>(&cl.exp.node)) {
    // 6.6.2: thread i writes fix(L, i) at its end, when every fact of its body holds;
    // no other thread may use it.
    Summary Uk;
    std::vector<Formula> kf = facts_at(pt.frames, c);
    range_facts(k->iter.s, k->bound, kf);
    for (const Stmt& st : k->body.stmts) {
      uses(st, dmems, fam, Uk);
      for (Formula& f : facts_of(st))
        kf.push_back(std::move(f));
    }
    result_reads(k->body, dmems, fam, pt.B->stmts[c].pos, Uk);
    localize(Uk, k->body);
    Solver& ks = solver_for(kf);
    Acc wi{lmad_fix(t.L, Poly::var(k->iter.s)),
           "write of thread " + k->iter.s + " of the kernel creating " + t.root};
    check({wi}, others(Uk, k->iter.s, k->bound), ks, Property::OtherThreads, a);
    check({whole}, U, at_u, Property::NonOverlap, a);
  } else {
    Summary Uc = U;
    uses_at(B.stmts[c], c, dmems, fam, Uc);
    check({whole}, Uc, at_u, Property::NonOverlap, a);
  }
  return loop_writes;
}

/// Step 7. A point inside a kernel whose threads share the destination: the writes of
/// thread i against the uses of every other thread.
void Pass::check_enclosing_kernel(const Point& pt, const Trace& t,
                                  const std::vector<Acc>& loop_writes, ScAttempt& a) {
  const Body& B = *pt.B;
  const Frame& bf = pt.frames.back();
  auto ms = ix_.site.find(pt.ysm);
  bool local = ms != ix_.site.end() && ms->second.first == &B;
  if (bf.kind != Frame::Kind::Kernel || local) return;
  std::set<std::string> dmems = destination_blocks(pt);
  Summary Ub;
  for (const Stmt& st : B.stmts)
    uses(st, dmems, t.fam, Ub);
  result_reads(B, dmems, t.fam, B.pos, Ub);
  localize(Ub, B);
  std::vector<Acc> Wb;
  Wb.push_back(whole_creation(pt, t));
  Wb.back().at = t.c;
  for (const auto& [dd, w] : t.fam_writes) {
    Wb.push_back(w);
    Wb.back().at = dd;
  }
  Wb.insert(Wb.end(), loop_writes.begin(), loop_writes.end());
  // Thread i's write happens when the facts before it hold in thread i.
  const Summary Uo = others(Ub, bf.iter, bf.bound);
  const SolverOf at_w = at_use(pt.frames);
  for (const Acc& w : Wb)
    check({w}, Uo, at_w(w), Property::EnclosingThreads, a);
}

/// The write of the whole source at its creation.
Acc Pass::whole_creation(const Point& pt, const Trace& t) {
  const SLet& cl = t.creation(pt);
  return Acc{t.L, "creation of " + t.root + " (" + creation_text(cl, pt.B->stmts[t.c].pos) + ")"};
}

/// The destination's blocks: its aliases and the blocks of loops carrying the source.
std::set<std::string> Pass::destination_blocks(const Point& pt) {
  const Body& B = *pt.B;
  std::set<std::string> dmems = block_names(pt.ysm);
  for (const Carried& cl : carried_) {
    const SLet& ll = std::get<SLet>(B.stmts[cl.d].node);
    dmems.insert(std::get<ELoop>(ll.exp.node).params[cl.j - 1].name.s);
    dmems.insert(ll.pats[cl.j - 1].name.s);
  }
  return dmems;
}

/// Step 8: new annotations, lifted definitions; the blocks that the rewritten arrays
/// lived in are collected for removal once every plan is applied.
void Pass::apply(Plan& p, std::set<std::string>& old_mems, ScAttempt& a) {
  Body& B = *p.B;
  // A scratch in the destination: zeros, as the value semantics has them.
  if (SLet& cl = std::get<SLet>(B.stmts[p.c].node);
      std::holds_alternative<EScratch>(cl.exp.node) && !opt_.broken_scratch) {
    const Type& ty = *cl.pats.at(0).type;
    Lit zero;
    zero.type = ty.elem;
    cl.exp.node = EReplicate{ty.dims.at(0), AtomArg{zero, B.stmts[p.c].pos}};
    a.fired.push_back("applied: scratch as replicate");
  }
  if (p.placed) placed_.insert_or_assign(p.root, *p.placed);
  std::map<std::string, LmadSyn> syn;
  for (const auto& [n, l] : p.fam) {
    syn[n] = explicit_syn(l);
    old_mems.insert(ix_.binding.at(n)->type->ann->mem.s);
  }
  for (const Carried& cl : p.carried)
    std::get<ELoop>(std::get<SLet>(B.stmts[cl.d].node).exp.node).inits[cl.j - 1].s = p.ysm;
  for (auto& [n, s] : syn) {
    Binding* b = ix_.binding.at(n);
    auto keep = p.fam_mem.find(n);
    b->type->ann->mem.s = keep != p.fam_mem.end() ? keep->second : p.ysm;
    b->type->ann->lmad = s;
    a.rewritten.push_back(n);
    arr_cache_.erase(n);
  }
  // The branches first: lifting moves the if's statement, and the branches with it.
  if (!p.branches.empty()) {
    auto& f = std::get<EIf>(std::get<SLet>(B.stmts[p.c].node).exp.node);
    Body* brs[2] = {&f.then_body, &f.else_body};
    for (size_t k = 0; k < p.branches.size() && k < 2; ++k) {
      Plan& bp = p.branches[k];
      // The branch returns the block its result now lives in.
      const std::string& r = brs[k]->results[p.if_result].s;
      auto keep = bp.fam_mem.find(r);
      brs[k]->results[p.if_result - 1].s = keep != bp.fam_mem.end() ? keep->second : p.ysm;
      if (!(p.outside && *p.outside == k)) apply(bp, old_mems, a);
    }
    // The array created before the if last: its lifting moves statements of this
    // body before the if (the if keeps its index).
    if (p.outside) apply(p.branches[*p.outside], old_mems, a);
  }
  if (!p.lift.empty() || !p.checks.empty()) {
    std::vector<Stmt> moved;
    for (size_t d : p.lift) {
      const SLet& l = std::get<SLet>(B.stmts[d].node);
      a.lifted.push_back(l.pats[0].name.s + " (line " + std::to_string(B.stmts[d].pos.line) + ")");
      a.fired.push_back(std::holds_alternative<EAlloc>(l.exp.node) ? "applied: lift allocation"
                                                                   : "applied: lift definition");
      moved.push_back(B.stmts[d]);
    }
    moved.insert(moved.end(), p.checks.begin(), p.checks.end());
    for (auto it = p.lift.rbegin(); it != p.lift.rend(); ++it)
      B.stmts.erase(B.stmts.begin() + static_cast<long>(*it));
    B.stmts.insert(B.stmts.begin() + static_cast<long>(p.c), moved.begin(), moved.end());
  }
}

} // namespace funmem::sc
