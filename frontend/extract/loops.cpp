// The extractor's loops (extractor.h): counted for loops summarised with their counters,
// other loops over-approximated, barrier loops.
#include "frontend/extract/extractor.h"

namespace funmem::frontend::detail {

void Extractor::for_stmt(const ForStmt* f, const Ctx& c) {
  const VarDecl* var = nullptr;
  const Expr* init = nullptr;
  std::tie(var, init) = loop_counter(f, c);
  LoopCtx l;
  std::string why;
  bool init_done = false;
  std::optional<Formula> head; // a superset of the counter's values at the loop's head
  std::vector<const CallExpr*> invariants;
  const Expr* cond_expr = loop_condition(f, invariants);
  try {
    if (!var || !init || !var->getType()->isIntegerType())
      throw NotAffine{"the loop has no integer counter initialised in its header"};
    if (has_jump(f->getBody()) && has_barrier(f->getBody()))
      throw NotAffine{"the loop leaves its body early and has a barrier"};
    check_loop_uses(f, var, cond_expr);
    rvalue(init, c);
    init_done = true;
    Poly a = poly(init);
    // The start and the bound are evaluated whether the loop runs or not: their checks
    // take the loop's context, not the counter's facts (under those, a bound that C
    // wraps into a huge one, which makes the loop run, would look impossible).
    flush(c);
    l.var = var->getNameAsString();
    const auto* cond =
        dyn_cast_or_null<BinaryOperator>(cond_expr ? cond_expr->IgnoreParenImpCasts() : nullptr);
    if (!cond) throw NotAffine{"the loop condition is not a comparison"};
    // `k + e1 REL e2` (the counter with coefficient 1 on the left): k REL e2 - e1.
    Poly k0 = Poly::var(l.var);
    auto saved = env_.find(var) != env_.end() ? std::optional<Poly>(env_[var]) : std::nullopt;
    env_[var] = k0;
    Poly right;
    std::vector<RangeCheck> bound_checks = checks_of([&] { right = poly(cond->getRHS()); });
    Poly left = poly(cond->getLHS());
    if (saved)
      env_[var] = *saved;
    else
      env_.erase(var);
    Poly rest = left.substitute({{l.var, Poly(0)}});
    if (!(left - rest == k0) || mentions(right, l.var))
      throw NotAffine{"the loop condition does not compare the counter"};
    Poly b = right - rest;
    LoopStep st = loop_step(f->getInc());
    loop_shape(l, cond->getOpcode(), a, b, st, head);
    std::vector<RangeCheck> own = checks_of([&] {
      step_up(l, st, f->getInc());
      counter_range(l, var->getType(), cond, b, st, f->getInc());
    });
    // The header's checks (the condition's and the step's own arithmetic) hold at every
    // value the condition is evaluated at: the start, and the values up to the one that
    // ends the loop (not under the summary's facts: a condition that C wraps may make
    // them empty, and every check vacuous).
    Ctx hc = c;
    add_guard(hc.guards, header_values(l, st, a, b));
    flush(hc);
    pending_ = std::move(bound_checks);
    flush(c);
    // The summary's obligations hold where the loop runs: where its start meets the
    // condition (not under the summary's facts, which a step below 1 makes empty).
    const BinaryOperatorKind op = cond->getOpcode();
    Ctx sc = c;
    add_guard(sc.guards, Formula::cmp(a,
                                      op == BO_LT   ? Rel::Lt
                                      : op == BO_LE ? Rel::Le
                                      : op == BO_GT ? Rel::Gt
                                                    : Rel::Ge,
                                      b));
    pending_ = std::move(own);
    flush(sc);
  } catch (const NotAffine& n) {
    why = n.why;
    // The header's checks were on the summary's counter: without the summary, the
    // counter holds any value and the condition is taken again below.
    if (init_done) pending_.clear();
  }
  if (!why.empty()) {
    // Not summarised (`why`): any number of iterations; its condition, invariants
    // included (not checked, as a `while` loop's), evaluated at each.
    if (init_done)
      env_[var] = any(f->getBeginLoc(), var, "the counter of a loop not summarised (" + why + ")");
    else if (const auto* ds = dyn_cast_or_null<DeclStmt>(f->getInit()); ds && var)
      guarded(ds, [&] { var_decl(var, c); });
    else if (f->getInit())
      stmt(f->getInit(), c);
    any_loop(f, f->getCond(), f->getInc(), f->getBody(), c, false);
    return;
  }
  // The condition is evaluated before every iteration and once more at the end, the
  // increment's operand after every iteration: their reads happen at any value of the
  // counter (and at least once, even when the loop runs no iteration).
  const size_t before = k_.accesses.size();
  // `--broken unread-loop-headers` (tests of the generated-kernel campaign): the reads
  // are dropped.
  if (broken_ != "unread-loop-headers") {
    Ctx hc = c;
    env_[var] =
        any(f->getBeginLoc(), var, "the counter in the loop's header (read at every value)");
    guarded(cond_expr, [&] { rvalue(cond_expr, hc); });
    hc.exact = false; // the increment: only after an iteration
    if (const auto* ca = dyn_cast_or_null<CompoundAssignOperator>(
            f->getInc() ? f->getInc()->IgnoreParenImpCasts() : nullptr))
      guarded(ca->getRHS(), [&] { rvalue(ca->getRHS(), hc); });
    flush(hc);
  }
  if (k_.accesses.size() > before && has_barrier(f->getBody())) {
    unsupported(f, "a loop with __syncthreads() whose condition or step reads memory (its "
                   "iterations may differ between the threads of a block)");
    return;
  }
  cover(f->getCond(), "loop condition (no memory)");
  cover(f->getInc(), "loop increment (no memory)");
  forget_assigned(f->getBody(), l.var);
  l.barrier = has_top_barrier(f->getBody());
  env_[var] = Poly::var(l.var);
  loop_invariants(invariants, f->getBody(), var, l, head, c);
  if (!loop_body(f, l, c)) return;
  // After the loop: what it assigns, its counter included, holds any value.
  forget_assigned(f->getBody(), "");
  env_[var] = any(f->getBeginLoc(), var, "the counter after the loop");
}

std::pair<const VarDecl*, const Expr*> Extractor::loop_counter(const ForStmt* f, const Ctx& c) {
  const VarDecl* var = nullptr;
  const Expr* init = nullptr;
  if (const auto* ds = dyn_cast_or_null<DeclStmt>(f->getInit());
      ds && ds->decl_begin() != ds->decl_end()) {
    // `for (int k = a, n = e; ...)`: the first is the counter, the others locals.
    var = dyn_cast<VarDecl>(*ds->decl_begin());
    if (var) init = var->getInit();
    for (auto d = std::next(ds->decl_begin()); d != ds->decl_end(); ++d)
      if (const auto* other = dyn_cast<VarDecl>(*d)) guarded(ds, [&] { var_decl(other, c); });
  } else if (const auto* b = dyn_cast_or_null<BinaryOperator>(f->getInit());
             b && b->getOpcode() == BO_Assign) {
    if (const auto* d = dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts()))
      var = dyn_cast<VarDecl>(d->getDecl());
    init = b->getRHS();
  }
  return {var, init};
}

const Expr* Extractor::loop_condition(const ForStmt* f, std::vector<const CallExpr*>& invariants) {
  // GPUVerify's invariants come first in the condition: `(__invariant(e), k < n)`.
  const Expr* cond_expr = f->getCond();
  while (const auto* b =
             dyn_cast_or_null<BinaryOperator>(cond_expr ? cond_expr->IgnoreParens() : nullptr)) {
    if (b->getOpcode() != BO_Comma || !only_annotations(b->getLHS())) break;
    cover(b->getLHS(), "GPUVerify annotation (a specification: not executed, not trusted)");
    mark(b, "loop condition (no memory)");
    annotation_calls(b->getLHS(), invariants);
    cond_expr = b->getRHS();
  }
  return cond_expr;
}

// The condition and the increment are evaluated again after every iteration: a
// name they use that the body assigns (or whose address is taken) changes them.
void Extractor::check_loop_uses(const ForStmt* f, const VarDecl* var, const Expr* cond_expr) {
  std::set<const ValueDecl*> changed;
  assigned_in(f->getBody(), changed);
  if (changed.count(var)) throw NotAffine{"the counter is assigned in the body"};
  // An alias made before the body (`int* p = &i;`, `int& r = i;`, in the header too)
  // changes the counter where no assignment names it.
  if (escaped_.count(var)) throw NotAffine{"the counter's address is taken"};
  // The condition and the step are evaluated again at each iteration: a side effect
  // in them (`i += (j++, 1)`, a call of a function that assigns) changes what they
  // read, which the summary takes as fixed.
  const Expr* step = f->getInc() ? f->getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto* ca = dyn_cast_or_null<CompoundAssignOperator>(step))
    step = ca->getRHS();
  else if (isa_and_nonnull<UnaryOperator>(step))
    step = nullptr;
  std::set<const FunctionDecl*> seen;
  if (side_effects(cond_expr, seen) || side_effects(step, seen))
    throw NotAffine{"the loop's condition or step has side effects"};
  std::function<void(const Stmt*)> uses = [&](const Stmt* x) {
    if (!x) return;
    if (const auto* d = dyn_cast<DeclRefExpr>(x);
        d && d->getDecl() != var && (changed.count(d->getDecl()) || escaped_.count(d->getDecl())))
      throw NotAffine{"'" + d->getDecl()->getNameAsString() +
                      "', which the loop's condition or step uses, changes in its body"};
    for (const Stmt* child : x->children())
      uses(child);
  };
  uses(cond_expr);
  uses(f->getInc());
}

bool Extractor::side_effects(const Stmt* s, std::set<const FunctionDecl*>& seen) const {
  if (!s) return false;
  if (const auto* e = dyn_cast<Expr>(s); e && e->HasSideEffects(ctx_, false)) return true;
  if (const auto* call = dyn_cast<CallExpr>(s)) {
    const FunctionDecl* fd = call->getDirectCallee();
    if (!fd) return true; // through a pointer: any function
    const FunctionDecl* def = nullptr;
    if (fd->hasBody(def) && seen.insert(def).second && side_effects(def->getBody(), seen))
      return true;
  }
  for (const Stmt* k : s->children())
    if (side_effects(k, seen)) return true;
  return false;
}

Extractor::LoopStep Extractor::loop_step(const Expr* inc0) {
  const Expr* inc = inc0 ? inc0->IgnoreParenImpCasts() : nullptr;
  LoopStep s;
  if (const auto* u = dyn_cast_or_null<UnaryOperator>(inc)) {
    if (u->isIncrementOp())
      s.step = 1;
    else if (u->isDecrementOp()) {
      s.step = 1;
      s.up = false;
    }
  } else if (const auto* ca = dyn_cast_or_null<CompoundAssignOperator>(inc)) {
    if (ca->getOpcode() == BO_AddAssign)
      s.step = poly(ca->getRHS());
    else if (ca->getOpcode() == BO_SubAssign) {
      s.step = poly(ca->getRHS());
      s.up = false;
    } else if ((ca->getOpcode() == BO_ShrAssign &&
                poly(ca->getRHS()).constant() == std::optional<int64_t>(1)) ||
               (ca->getOpcode() == BO_DivAssign &&
                poly(ca->getRHS()).constant() == std::optional<int64_t>(2)))
      s.geometric = true;
    else if ((ca->getOpcode() == BO_ShlAssign &&
              poly(ca->getRHS()).constant() == std::optional<int64_t>(1)) ||
             (ca->getOpcode() == BO_MulAssign &&
              poly(ca->getRHS()).constant() == std::optional<int64_t>(2)))
      s.geometric = s.doubling = true;
  }
  if (s.step == Poly(0) && !s.geometric)
    throw NotAffine{"the loop increment is not `k++`, `k += s`, `k--`, `k -= s`, `k >>= 1` "
                    "or `k /= 2`"};
  return s;
}

Formula Extractor::header_values(const LoopCtx& l, const LoopStep& st, const Poly& a,
                                 const Poly& b) const {
  const Poly k = Poly::var(l.var);
  const Formula start = Formula::cmp(k, Rel::Eq, a);
  if (l.doubling) // up from a >= 0 to below 2b; down from a < 0
    return Formula::disj({start, Formula::conj({le(Poly(0), a), le(a, k), le(k, Poly(2) * b)}),
                          Formula::conj({lt(a, Poly(0)), le(k, a)})});
  if (l.geometric) // between the start and 0, either side
    return Formula::disj(
        {Formula::conj({le(Poly(0), k), le(k, a)}), Formula::conj({le(a, k), le(k, Poly(0))})});
  if (st.up) // counting up to the value that ends the loop
    return Formula::disj({start, Formula::conj({le(a, k), le(k, a + l.step * l.count)})});
  return Formula::disj({start, Formula::conj({le(l.lower - Poly(1), k), le(k, a)})});
}

bool Extractor::update_undefined(QualType t, const Expr* inc) const {
  // The update overflows undefinedly only where it is computed in the counter's own
  // signed type (`int i; i += 4294967295u` computes in unsigned and converts back: C
  // defines it, and the counter counts down). `<<=` is taken as defined (C++20).
  t = t.getCanonicalType();
  if (!t->isSignedIntegerOrEnumerationType() || t->isBooleanType()) return false;
  QualType comp;
  if (const auto* ca =
          dyn_cast_or_null<CompoundAssignOperator>(inc ? inc->IgnoreParens() : nullptr)) {
    if (ca->getOpcode() == BO_ShlAssign) return false;
    comp = ca->getComputationResultType();
  } else {
    comp = t->isPromotableIntegerType() ? ctx_.getPromotedIntegerType(t) : t;
  }
  comp = comp.getCanonicalType();
  return comp->isSignedIntegerOrEnumerationType() && ctx_.getIntWidth(comp) == ctx_.getIntWidth(t);
}

void Extractor::counter_range(const LoopCtx& l, QualType t, const BinaryOperator* cond,
                              const Poly& b, const LoopStep& st, const Expr* inc) {
  // The value that ends the loop must be one the counter's type holds: else C wraps it
  // and the loop runs on (`for (unsigned i = n; i >= 0; i--)`). Where C defines the
  // wrap it is no less wrong a summary: never taken modulo. A 64-bit unsigned counter
  // stays below 2^63 (its type's maximum passes the model's coefficients).
  t = t.getCanonicalType();
  const bool is_signed = t->isSignedIntegerOrEnumerationType();
  const unsigned width = t->isBooleanType() ? 1 : ctx_.getIntWidth(t);
  bool undefined = update_undefined(t, inc);
  if (!undefined && is_signed && width >= ctx_.getIntWidth(ctx_.IntTy) && !l.geometric) {
    // Computed in a wider or unsigned type and converted back (`i += blockDim.x *
    // gridDim.x`): the step must be a value of the counter's type, else the conversion
    // makes it another step (`i += 4294967295u` is -1). The last step's wrap is then the
    // one a signed overflow would be: assumed absent, and said, as one.
    const int64_t top =
        width >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (width - 1)) - 1;
    obligation(le(st.step, Poly(top)), inc, false,
               "the loop's step may not be a value of " + t.getAsString() +
                   " (converted back, it is another step)");
    undefined = true;
  }
  std::optional<Poly> end;
  if (l.doubling)
    end = Poly(2) * b;
  else if (!l.geometric && st.up)
    end = l.lower + l.step * l.count;
  else if (!l.geometric)
    end = l.lower - Poly(1);
  if (!end) return;
  if (is_signed && width >= 64) {
    // Its range passes the model's coefficients: an overflow of the update is assumed
    // absent (said).
    obligation(Formula::conj({}), cond, true, "");
    return;
  }
  const TypeRange r = range_of(ctx_, t);
  const int64_t hi = r.hi.value_or(std::numeric_limits<int64_t>::max());
  obligation(Formula::conj({ge(*end, Poly(r.lo)), le(*end, Poly(hi))}), cond, undefined,
             "the loop's counter may leave the range of " + t.getAsString() +
                 " at its last step (C wraps it and the loop runs on)");
}

void Extractor::step_up(const LoopCtx& l, const LoopStep& st, const Expr* inc) {
  // `k += s` with s < 1 counts down (or not at all) from the start: the summary's count
  // and facts would be wrong.
  if (l.geometric || !st.up || st.step == Poly(1)) return;
  if (auto s = st.step.constant(); s && *s < 1 && broken_ != "unchecked-loop-summaries")
    throw NotAffine{"the loop's step is not positive"};
  obligation(ge(st.step, Poly(1)), inc, false,
             "the loop's step may be below 1 (the counter would not count up)");
}

void Extractor::obligation(const Formula& cond, const Expr* at, bool undefined, std::string what) {
  if (!what.empty() && cond.eval({}) == std::optional<bool>(true)) return; // holds always
  // `--broken unchecked-loop-summaries` (tests of the generated-kernel campaign): a
  // summary's count and facts are taken as they are.
  if (broken_ == "unchecked-loop-summaries") return;
  RangeCheck rc;
  rc.cond = cond;
  rc.undefined = undefined;
  rc.assumed = undefined && what.empty();
  rc.obligation = std::move(what);
  rc.pos = pos(at->getBeginLoc());
  rc.text = text(at);
  rc.type = kLoopSummary;
  rc.key = wrap_key(rc.pos, rc.text, rc.type);
  // Not proved in an earlier round: the loop is not summarised.
  if (modular_.count(rc.key)) throw NotAffine{rc.obligation};
  pending_.push_back(std::move(rc));
}

void Extractor::loop_shape(LoopCtx& l, BinaryOperatorKind op, const Poly& a, const Poly& b,
                           const LoopStep& st, std::optional<Formula>& head) {
  Poly k = Poly::var(l.var);
  if (st.doubling) {
    if (op != BO_LT && op != BO_LE) throw NotAffine{"a doubling loop must test `k < b`"};
    l.geometric = l.doubling = true;
    l.inclusive = op == BO_LE;
    l.lower = a;
    l.count = b;
    // From a start >= 0 the counter only grows (from a negative one it falls).
    l.facts = {Formula::cmp(k, op == BO_LT ? Rel::Lt : Rel::Le, b),
               Formula::disj({lt(a, Poly(0)), le(a, k)})};
  } else if (st.geometric) {
    if (op != BO_GT && op != BO_GE) throw NotAffine{"a halving loop must test `k > b`"};
    l.geometric = true;
    l.inclusive = op == BO_GE;
    l.lower = a;
    l.count = b;
    // From a start >= 0 the counter only falls (from a negative one it rises to -1 or 0).
    l.facts = {Formula::cmp(k, op == BO_GT ? Rel::Gt : Rel::Ge, b),
               Formula::disj({lt(a, Poly(0)), le(k, a)})};
  } else if (st.up && (op == BO_LT || op == BO_LE)) {
    Poly end = op == BO_LT ? b : b + 1; // exclusive
    l.lower = a;
    l.step = st.step;
    l.count = st.step == Poly(1) ? end - a : Poly::div(end - a + st.step - 1, st.step);
    l.facts = {le(a, k), lt(k, end)};
    // a + j*step after iteration j (j = 0: the start; 1 <= j <= count).
    if (auto s = st.step.constant(); s && *s >= 1) head = at_head(k, a, st.step, l.count);
  } else if (!st.up && (op == BO_GT || op == BO_GE) && st.step == Poly(1)) {
    Poly last = op == BO_GT ? b + 1 : b; // inclusive smallest value
    l.lower = last;
    l.count = a - last + 1;
    l.facts = {le(last, k), le(k, a)};
    head = at_head(k, a, Poly(-1), l.count);
  } else {
    throw NotAffine{"the loop's condition and increment do not bound the counter"};
  }
}

bool Extractor::loop_body(const ForStmt* f, const LoopCtx& l, const Ctx& c) {
  Ctx inner = c;
  ++inner.depth;
  inner.loops.push_back(l);
  if (l.barrier) {
    if (c.divergent || c.returned || c.uniform) {
      unsupported(f, "a loop with __syncthreads() inside a condition or after a "
                     "thread-dependent early return (divergence)");
      return false;
    }
    // Every thread of the block must run the same iterations.
    for (const Poly* p : {&l.lower, &l.count, &l.step})
      for (const std::string& v : p->free_vars())
        if (v.rfind("threadIdx_", 0) == 0 || v.rfind("fm_any_", 0) == 0) {
          unsupported(f, "a loop with __syncthreads() whose iterations differ between the "
                         "threads of a block (barrier divergence)");
          return false;
        }
    if (phase_accesses_ > 0)
      k_.unknown.push_back({pos(f->getBeginLoc()),
                            "accesses before this loop are not separated from its first "
                            "iteration by a barrier"});
    ++phase_;
    phase_accesses_ = 0;
    block_items(f->getBody(), inner);
    if (phase_accesses_ > 0)
      k_.unknown.push_back({pos(f->getBeginLoc()),
                            "accesses after the last barrier of the loop body meet the next "
                            "iteration's"});
    ++phase_;
    phase_accesses_ = 0;
  } else {
    inner.divergent = true;
    if (has_jump(f->getBody())) inner.exact = false;
    stmt(f->getBody(), inner);
  }
  return true;
}

void Extractor::any_loop(const Stmt* loop, const Expr* cond, const Expr* inc, const Stmt* body,
                         const Ctx& c, bool body_first) {
  if (has_barrier(loop)) {
    unsupported(loop, "__syncthreads() in a loop whose iterations it cannot count (barrier "
                      "divergence is not excluded)");
    return;
  }
  forget_assigned(loop, "");
  Ctx inner = c;
  inner.divergent = true;
  inner.exact = false;
  ++inner.depth;
  if (cond) {
    guarded(cond, [&] { rvalue(cond, inner); });
    // A `do` body runs once before its condition is tested.
    if (!body_first) {
      auto g = formula(cond);
      flush(inner); // the condition's checks, where it is evaluated
      if (g) add_guard(inner.guards, *g);
    }
  }
  stmt(body, inner);
  if (inc) guarded(inc, [&] { rvalue(inc, inner); });
  forget_assigned(loop, "");
}

Formula Extractor::at_head(const Poly& k, const Poly& a, const Poly& step, const Poly& count) {
  Poly j = Poly::var("fm_head_" + k.to_string());
  return Formula::conj({Formula::cmp(k, Rel::Eq, a + j * step), le(Poly(0), j),
                        Formula::disj({Formula::cmp(j, Rel::Eq, Poly(0)), le(j, count)})});
}

bool Extractor::has_jump(const Stmt* s) {
  if (!s) return false;
  if (isa<BreakStmt>(s) || isa<ContinueStmt>(s) || isa<GotoStmt>(s) || isa<ReturnStmt>(s))
    return true;
  for (const Stmt* k : s->children())
    if (has_jump(k)) return true;
  return false;
}

bool Extractor::has_barrier(const Stmt* s) {
  std::set<const FunctionDecl*> seen;
  return reaches(s, seen, [](const Stmt* x) {
    const auto* call = dyn_cast<CallExpr>(x);
    return call && call->getDirectCallee() &&
           call->getDirectCallee()->getNameAsString() == "__syncthreads";
  });
}

bool Extractor::has_top_barrier(const Stmt* body) {
  auto is_barrier = [](const Stmt* s) {
    const auto* call = dyn_cast<CallExpr>(s);
    return call && call->getDirectCallee() &&
           call->getDirectCallee()->getNameAsString() == "__syncthreads";
  };
  // A `for` loop at the top of the body with such a barrier counts as one (a loop
  // nest whose bounds are uniform in the block: its barriers are met by every thread).
  auto is_barrier_loop = [](const Stmt* s) {
    const auto* f = dyn_cast<ForStmt>(s);
    return f && has_top_barrier(f->getBody());
  };
  if (is_barrier(body) || is_barrier_loop(body)) return true;
  if (const auto* cs = dyn_cast<CompoundStmt>(body))
    for (const Stmt* s : cs->body())
      if (is_barrier(s) || is_barrier_loop(s)) return true;
  return false;
}

} // namespace funmem::frontend::detail
