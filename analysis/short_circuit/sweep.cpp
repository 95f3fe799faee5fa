// Short-circuiting: The sweep over points and the order of attempts (see pass.h).
#include "analysis/short_circuit/pass.h"

namespace funmem::sc {

// ------------------------------------------------------------ the sweep
bool Pass::sweep(Body& b, std::vector<Frame>& fr) {
  for (size_t p = b.stmts.size(); p-- > 0;) {
    fr.back().idx = p;
    Stmt& s = b.stmts[p];
    auto* l = std::get_if<SLet>(&s.node);
    if (!l) continue;
    if (points(b, p, fr, *l, s.pos)) return true;
    bool changed = false;
    std::visit(Overloaded{[&](EKernel& x) {
                            fr.push_back(Frame{&x.body, 0, Frame::Kind::Kernel, x.iter.s, x.bound});
                            changed = sweep(x.body, fr);
                            fr.pop_back();
                          },
                          [&](ELoop& x) {
                            fr.push_back(Frame{&x.body, 0, Frame::Kind::Loop, x.iter.s, x.bound});
                            changed = sweep(x.body, fr);
                            fr.pop_back();
                          },
                          [&](EIf& x) {
                            fr.push_back(Frame{&x.then_body, 0, Frame::Kind::Branch, "", {}});
                            changed = sweep(x.then_body, fr);
                            fr.back().body = &x.else_body;
                            if (!changed) changed = sweep(x.else_body, fr);
                            fr.pop_back();
                          },
                          [](auto&) {}},
               l->exp.node);
    if (changed) return true;
  }
  return false;
}

/// The points of one statement; true when one succeeded (the program changed).
bool Pass::points(Body& b, size_t p, std::vector<Frame>& fr, SLet& l, Pos pos) {
  if (l.pats.size() != 1) return false;
  auto dst = arr(l.pats[0].name.s);
  if (!dst) return false;
  auto base = [&](ScKind k, const std::string& x, Pos where) {
    Point pt;
    pt.kind = k;
    pt.pos = where;
    pt.B = &b;
    pt.P = p;
    pt.x = x;
    pt.dest = l.pats[0].name.s;
    pt.ysm = dst->mem;
    pt.frames = fr;
    return pt;
  };
  // An update of `dest` with `x`: the place's bounds are checked against dest's shape.
  auto update = [&](const std::string& x, const std::string& dest) {
    Point pt = base(ScKind::Update, x, pos);
    pt.dest = dest;
    pt.dest_dims = dst->dims;
    return pt;
  };
  try {
    if (auto* x = std::get_if<EUpdate>(&l.exp.node)) {
      const auto* v = std::get_if<Name>(&x->value.v);
      if (!v || !arr(v->s)) return false;
      Point pt = update(v->s, x->arr.s);
      pt.entries = sym_entries(x->entries);
      pt.syn_entries = &x->entries;
      if (const auto& t = l.pats[0].type) pt.dest_dims_syn = t->dims;
      pt.lnew = lmad_index(dst->lay, *pt.entries);
      return attempt(pt);
    }
    if (auto* x = std::get_if<EUpdateLmad>(&l.exp.node)) {
      Point pt = update(x->value.s, x->arr.s);
      pt.inner = sym_lmad(x->lmad);
      pt.lnew = lmad_compose(dst->lay, *pt.inner);
      return attempt(pt);
    }
    if (auto* x = std::get_if<EConcat>(&l.exp.node)) {
      const auto& ta = arr(x->a.s);
      if (!ta || ta->dims.empty()) return false;
      Poly na = ta->dims[0];
      Poly nb = dst->dims[0] - na;
      Point pb = base(ScKind::Concat, x->b.s, pos);
      pb.other = x->a.s;
      pb.lnew = lmad_index(dst->lay, {SymEntry{na, nb, Poly(1)}});
      if (attempt(pb)) return true;
      Point pa = base(ScKind::Concat, x->a.s, pos);
      pa.other = x->b.s;
      pa.lnew = lmad_index(dst->lay, {SymEntry{Poly(0), na, Poly(1)}});
      return attempt(pa);
    }
    if (auto* x = std::get_if<ECopy>(&l.exp.node)) {
      // `let y = copy x`: x is built where y lives and the copy reads and writes the
      // same places. A copy of a view or of a parameter is how an array is made from
      // one that stays: not a point.
      if (!arr(x->arr.s)) return false;
      for (std::string v = x->arr.s;;) {
        auto site = ix_.site.find(v);
        if (site == ix_.site.end()) return false;
        const auto& def =
            std::get<SLet>(site->second.first->stmts[site->second.second].node).exp.node;
        if (std::holds_alternative<EIndex>(def) || std::holds_alternative<ELmadSlice>(def))
          return false;
        const auto* t = std::get_if<ETranspose>(&def);
        if (!t) break;
        v = t->arr.s;
      }
      Point pt = base(ScKind::Copy, x->arr.s, pos);
      pt.lnew = dst->lay;
      return attempt(pt);
    }
    if (auto* x = std::get_if<EKernel>(&l.exp.node)) {
      if (x->body.results.size() != 1) return false;
      const Name& r = x->body.results[0];
      if (!arr(r.s)) return scalar_map(b, p, fr, l, *x, pos);
      Point pt = base(ScKind::KernelResult, r.s, r.pos);
      pt.B = &x->body;
      pt.P = x->body.stmts.size();
      pt.frames.push_back(Frame{&x->body, pt.P, Frame::Kind::Kernel, x->iter.s, x->bound});
      pt.lnew = lmad_fix(dst->lay, Poly::var(x->iter.s));
      return attempt(pt);
    }
  } catch (const Untranslatable&) {
    return false; // indices that are not polynomials: not a point we can describe
  } catch (const SymbolicOverflow&) {
    return false; // a place whose coefficients do not fit 64 bits: not one either
  }
  return false;
}

std::string Pass::key(const Point& pt) {
  return at(pt.pos) + " " + sc_kind_name(pt.kind) + " " + pt.x;
}

bool Pass::attempt(Point& pt) {
  if (decided_.count(key(pt))) return false;
  const auto& src = arr(pt.x);
  if (!src) return false;
  if (same_block(src->mem, pt.ysm) && src->mem == pt.ysm && src->lay == pt.lnew)
    return false; // already built in place
  decided_.insert(key(pt));
  fail_cache_.clear();
  auto t0 = std::chrono::steady_clock::now();
  ScAttempt a;
  a.kind = pt.kind;
  a.pos = pt.pos;
  a.source = pt.x;
  a.dest = pt.dest;
  a.dest_mem = pt.ysm;
  a.projected = pt.lnew.to_string();
  last_creation_.reset();
  return record(std::move(a), t0, [&](ScAttempt& at) {
    const ScAttempt pristine = at;
    try {
      analyse(pt, at);
    } catch (const Refused&) {
      // The destination may be created between the source's creation and the point
      // (and overwrite the source there): when its creation and what it needs can
      // move above the source's creation, the attempt is made again with them there.
      auto moved = hoist_destination(pt);
      if (!moved) throw;
      ScAttempt again = pristine;
      try {
        analyse(pt, again);
      } catch (const Refused&) {
        std::copy(moved->stmts.begin(), moved->stmts.end(),
                  pt.B->stmts.begin() + static_cast<long>(moved->from));
        reindex();
        throw;
      }
      again.lifted.insert(again.lifted.begin(), moved->what);
      again.fired.push_back("applied: hoist destination");
      at = std::move(again);
    }
  });
}

void Pass::reindex() {
  ix_ = Index{};
  for (Binding& b : p_.def.params)
    ix_.binding[b.name.s] = &b;
  ix_.body(p_.def.body);
  arr_cache_.clear();
  names_.reset();
  mixed_blocks_.reset();
  types_.clear();
  fail_cache_.clear(); // statements moved
}

/// Moves the destination's creation (with the allocation and the definitions it
/// needs) above the source's creation, when it is made between them in the point's
/// body from nothing the source's creation makes, writes only fresh blocks, and
/// neither it nor anything it moves past can fail (the run ends as before).
std::optional<Pass::Hoisted> Pass::hoist_destination(const Point& pt) {
  if (pt.kind == ScKind::KernelResult || pt.branch_result || !last_creation_) return std::nullopt;
  Body& B = *pt.B;
  const size_t c = *last_creation_;
  // The statements between the creation and the point that create arrays in the
  // destination's block (its root, or an array the destination's block is shared with).
  const std::set<std::string> dmems = block_names(pt.ysm);
  std::set<size_t> move;
  size_t e = c;
  std::string d;
  for (size_t k = c + 1; k < pt.P; ++k) {
    const auto* l = std::get_if<SLet>(&B.stmts[k].node);
    if (!l || !fresh_creation(l->exp)) continue;
    for (const Binding& b : l->pats)
      if (b.type && b.type->ann && dmems.count(b.type->ann->mem.s)) {
        move.insert(k);
        e = k;
        d += (d.empty() ? "" : ", ") + b.name.s;
      }
  }
  if (move.empty()) return std::nullopt;
  auto refuse = [&](const char* why) -> std::optional<Hoisted> {
    ++rep_.events[std::string("refused: hoist destination: ") + why];
    return std::nullopt;
  };
  // What they need from (c, e).
  std::vector<size_t> todo(move.begin(), move.end());
  while (!todo.empty()) {
    size_t k = todo.back();
    todo.pop_back();
    std::set<std::string> names, mems;
    stmt_mentions(B.stmts[k], names, mems);
    names.insert(mems.begin(), mems.end());
    for (const std::string& n : names) {
      auto it = ix_.site.find(n);
      if (it == ix_.site.end() || it->second.first != &B) continue;
      size_t dk = it->second.second;
      if (dk == c) return refuse("needs the source's creation");
      if (dk > c && dk < e && move.insert(dk).second) todo.push_back(dk);
    }
  }
  // The run ends as before when the moved statements cannot fail, or when the ones
  // they move past cannot.
  Solver& solver = solver_for(facts_at(pt.frames, c));
  Fail moved_fail = Fail::None, passed_fail = Fail::None;
  std::set<std::string> fresh;
  for (size_t k = c; k <= e; ++k) {
    const SLet* l = std::get_if<SLet>(&B.stmts[k].node);
    if (!move.count(k)) {
      passed_fail = std::max(passed_fail, may_fail(B.stmts[k], solver, 0));
      continue;
    }
    if (!l) return refuse("not a statement that can move");
    moved_fail = std::max(moved_fail, may_fail(B.stmts[k], solver, 0));
    if (std::holds_alternative<EAlloc>(l->exp.node)) fresh.insert(l->pats[0].name.s);
  }
  if (conflict(moved_fail, passed_fail)) return refuse("may fail");
  // Nothing they move past touches the blocks they allocate: by name, or through an
  // array living in one (a read of it would see the moved creation's values).
  for (size_t k = c; k <= e && !opt_.broken_hoist_use; ++k) { // (or deliberately broken)
    if (move.count(k)) continue;
    std::set<std::string> names, mems;
    stmt_mentions(B.stmts[k], names, mems);
    for (const std::string& m : mems)
      if (fresh.count(m)) return refuse("passes a use of a moved block");
    for (const std::string& n : names)
      if (const auto& t = arr(n); t && fresh.count(t->mem))
        return refuse("passes a use of a moved block");
    if (const auto* l = std::get_if<SLet>(&B.stmts[k].node))
      for (const Binding& b : l->pats)
        if (b.type && b.type->ann && fresh.count(b.type->ann->mem.s))
          return refuse("passes a use of a moved block");
  }
  for (size_t k : move) {
    const SLet& l = std::get<SLet>(B.stmts[k].node);
    bool scalar =
        std::holds_alternative<EScalar>(l.exp.node) || std::holds_alternative<EAlloc>(l.exp.node);
    if (!fresh_creation(l.exp) && !scalar) return refuse("not a statement that can move");
    for (const Binding& b : l.pats)
      if (b.type && b.type->ann && !fresh.count(b.type->ann->mem.s))
        return refuse("writes a block it does not allocate");
  }
  Hoisted h;
  h.from = c;
  h.stmts.assign(B.stmts.begin() + static_cast<long>(c),
                 B.stmts.begin() + static_cast<long>(e) + 1);
  h.what = d + " (the destination's creation, with what it needs)";
  std::vector<Stmt> order;
  for (size_t k = c; k <= e; ++k)
    if (move.count(k)) order.push_back(B.stmts[k]);
  for (size_t k = c; k <= e; ++k)
    if (!move.count(k)) order.push_back(B.stmts[k]);
  std::copy(order.begin(), order.end(), B.stmts.begin() + static_cast<long>(c));
  reindex();
  return h;
}

} // namespace funmem::sc
