// Short-circuiting: The in-place scalar map (thesis 6.9) (see pass.h).
#include "analysis/short_circuit/pass.h"

namespace funmem::sc {

// ------------------------------------------------------------ 6.9
bool Pass::scalar_map(Body& B, size_t p, std::vector<Frame>& fr, SLet& l, EKernel& k, Pos pos) {
  auto ys = arr(l.pats[0].name.s);
  if (!ys || ys->dims.size() != 1) return false;
  // The candidate: an array of B read as xs[i] in the kernel body.
  for (const Stmt& st : k.body.stmts) {
    const auto* rl = std::get_if<SLet>(&st.node);
    if (!rl) continue;
    const auto* ix = std::get_if<EIndex>(&rl->exp.node);
    if (!ix || ix->entries.size() != 1 || !ix->entries[0].is_index()) continue;
    const auto* v = std::get_if<SVar>(&ix->entries[0].start->node);
    if (!v || v->name != k.iter.s) continue;
    auto xs = arr(ix->arr.s);
    if (!xs || xs->dims.size() != 1) continue;
    Point pt;
    pt.kind = ScKind::ScalarMap;
    pt.pos = pos;
    pt.x = ix->arr.s;
    if (decided_.count(key(pt))) continue;
    decided_.insert(key(pt));
    auto t0 = std::chrono::steady_clock::now();
    ScAttempt a;
    a.kind = ScKind::ScalarMap;
    a.pos = pos;
    a.source = ix->arr.s;
    a.dest = l.pats[0].name.s;
    a.dest_mem = xs->mem;
    a.projected = xs->lay.to_string();
    a.creation = a.dest + " by kernel at " + at(pos);
    try {
      if (record(std::move(a), t0,
                 [&](ScAttempt& at) { in_place_map(B, p, fr, l, k, ix->arr.s, *xs, *ys, at); }))
        return true;
    } catch (const NotCandidate&) {
      continue;
    }
  }
  return false;
}

void Pass::in_place_map(Body& B, size_t p, std::vector<Frame>& fr, SLet& l, EKernel& k,
                        const std::string& xs, const ArrT& xt, const ArrT& yt, ScAttempt& a) {
  const std::string& ys = l.pats[0].name.s;
  if (xt.elem != yt.elem)
    throw NotCandidate{xs + " holds " + scalar_type_name(xt.elem) + ", " + ys + " " +
                       scalar_type_name(yt.elem)};
  if (!(xt.lay == yt.lay))
    throw NotCandidate{xs + " has layout " + xt.lay.to_string() + " but " + ys + " has " +
                       yt.lay.to_string()};
  // Unique: xs is defined in this body (or is a parameter of the definition at the
  // top level) and nothing in its memory is used after the kernel.
  auto xsite = ix_.site.find(xs);
  bool here = xsite != ix_.site.end() ? xsite->second.first == &B : &B == &p_.def.body;
  if (!here)
    throw NotCandidate{xs + " is defined outside the body of the kernel's "
                            "statement, which may run again"};
  // Its memory must live and die in this body (an allocation here, or a parameter's
  // block at the top level): otherwise statements after the enclosing `if`, loop or
  // kernel (or later iterations) may still read it, beyond what is checked below.
  const Body* xmem_at = alloc_body(xt.mem);
  bool own_block = ix_.site.count(xt.mem) ? xmem_at == &B : &B == &p_.def.body;
  if (!own_block)
    throw NotCandidate{"the memory " + xt.mem + " of " + xs +
                       " is not allocated in the body of the kernel's statement"};
  std::set<std::string> after, mems;
  for (size_t d = p + 1; d < B.stmts.size(); ++d)
    stmt_mentions(B.stmts[d], after, mems);
  for (const Name& r : B.results)
    after.insert(r.s);
  after.insert(mems.begin(), mems.end());
  for (const std::string& n : after) {
    const auto& t = arr(n);
    if ((t && same_block(t->mem, xt.mem)) ||
        (!t && same_block(n, xt.mem) && ix_.binding.count(n) && ix_.binding.at(n)->type &&
         ix_.binding.at(n)->type->kind == Type::Kind::Mem))
      throw NotCandidate{n + " (in the memory of " + xs + ") is used after the kernel"};
  }
  // xs is used in the body only by the one indexing.
  int uses_of_xs = 0;
  for (const Stmt& st : k.body.stmts) {
    std::set<std::string> ns, ms;
    stmt_mentions(st, ns, ms);
    uses_of_xs += static_cast<int>(ns.count(xs));
  }
  for (const Name& r : k.body.results)
    uses_of_xs += r.s == xs;
  if (uses_of_xs != 1)
    throw NotCandidate{xs + " is used " + std::to_string(uses_of_xs) +
                       " times in the kernel body, not once"};
  // The result's block must hold only ys, so that it can disappear.
  if (!alloc_body(yt.mem))
    throw NotCandidate{"the memory " + yt.mem + " of " + ys + " is not an allocation of its own"};
  int in_block = 0;
  for (const auto& [n, b] : ix_.binding)
    if (b->type && b->type->ann && b->type->ann->mem.s == yt.mem) ++in_block;
  if (in_block != 1) throw NotCandidate{"the memory " + yt.mem + " holds other arrays than " + ys};
  // Other threads must not use the cells thread i writes.
  std::vector<Frame> f2 = fr;
  f2.back().idx = p;
  f2.push_back(Frame{&k.body, k.body.stmts.size(), Frame::Kind::Kernel, k.iter.s, k.bound});
  Solver& solver = solver_for(facts_at(f2, k.body.stmts.size()));
  set_defs(f2, k.body.stmts.size());
  Summary Uk;
  for (const Stmt& st : k.body.stmts)
    uses(st, block_names(xt.mem), {}, Uk);
  result_reads(k.body, block_names(xt.mem), {}, k.body.pos, Uk);
  localize(Uk, k.body);
  // ys is built in xs's place: xs must lie inside its block, and ys inside its own (where
  // it does not, the kernel's writes fail, and in xs's block they would not).
  InsideQuery q{solver, [](const std::string&) { return true; }};
  if (!opt_.broken_outside_block && !shown_inside(xs, q))
    throw Refused{Property::Bounds, xs + "'s layout is not shown inside its block",
                  "destination not shown inside its block"};
  if (!opt_.broken_outside_block && !shown_inside(ys, q))
    throw Refused{Property::Bounds, ys + "'s layout is not shown inside its own block",
                  "source not shown inside its block"};
  Acc wi{lmad_fix(yt.lay, Poly::var(k.iter.s)), "write of " + ys + " by thread " + k.iter.s};
  a.dest_mem = xt.mem;
  check({wi}, others(Uk, k.iter.s, k.bound), solver, Property::OtherThreads, a);
  // Transform: ys lives in xs's memory; its own block goes.
  arr_cache_.clear();
  std::string old = yt.mem;
  std::function<void(Body&)> rename = [&](Body& b) {
    for (Stmt& st : b.stmts) {
      if (auto* sl = std::get_if<SLet>(&st.node)) {
        for (Binding& pb : sl->pats)
          if (pb.type && pb.type->ann && pb.type->ann->mem.s == old) pb.type->ann->mem.s = xt.mem;
        if (auto* lp = std::get_if<ELoop>(&sl->exp.node))
          for (Name& n : lp->inits)
            if (n.s == old) n.s = xt.mem;
      }
      each_body(st, [&](Body& in) { rename(in); });
    }
    for (Name& n : b.results)
      if (n.s == old) n.s = xt.mem;
  };
  rename(p_.def.body);
  a.rewritten.push_back(ys);
  if (remove_alloc_if_dead(old)) a.removed.push_back(old);
}

} // namespace funmem::sc
