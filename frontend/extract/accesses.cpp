// The extractor's accesses (extractor.h): recording reads, writes and atomics, their
// units, expressions evaluated for their accesses, assignments and barriers.
#include "frontend/extract/extractor.h"

namespace funmem::frontend::detail {

void Extractor::record(const Target& p, const Poly& size, Kind kind, const Ctx& c, const Stmt* at) {
  flush(c); // the checks of the address (and of values computed before it)
  if (!p) return;
  Access a;
  a.array = p->obj.name;
  a.space = p->obj.space;
  a.write = kind != Kind::Read;
  a.atomic = kind == Kind::Atomic;
  a.guards = c.guards;
  a.exact_guards = c.exact;
  a.loops = c.loops;
  a.phase = phase_;
  a.grid_phase = grid_phase_;
  a.pos = pos(at->getBeginLoc());
  a.text = text(at);
  if (kind == Kind::Write) {
    a.value = value_;
    a.stored = stored_;
    a.stored_if = stored_if_;
  }
  if (a.write)
    for (const auto& [d, v] : env_)
      if (isa<VarDecl>(d)) a.scope[d->getNameAsString()] = v;
  k_.accesses.push_back(std::move(a));
  offsets_.push_back(p->off);
  bytes_.push_back(size);
  mark(at, std::string(kind == Kind::Read    ? "read"
                       : kind == Kind::Write ? "write"
                                             : "atomic") +
               " #" + std::to_string(k_.accesses.size() - 1) + " of " + p->obj.name);
  ++phase_accesses_;
}

void Extractor::load(const Expr* lv, const Ctx& c) {
  // C++'s lvalue results: `(j = e)`, `++j` are done, then their target is read.
  const Expr* x = lv->IgnoreParens();
  if (const auto* b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp()) {
    mark(lv, "evaluated");
    rvalue(b, c);
    return load(b->getLHS(), c);
  }
  if (const auto* u = dyn_cast<UnaryOperator>(x);
      u && u->isPrefix() && u->isIncrementDecrementOp()) {
    mark(lv, "evaluated");
    rvalue(u, c);
    return load(u->getSubExpr(), c);
  }
  // `c ? x : y` as an lvalue (C++): one of the two is read.
  if (const auto* co = dyn_cast<AbstractConditionalOperator>(lv->IgnoreParens())) {
    mark(lv, "evaluated");
    mark(co, "evaluated");
    rvalue(co->getCond(), c);
    load(co->getTrueExpr(), branch(c, co, true));
    load(co->getFalseExpr(), branch(c, co, false));
    return;
  }
  Target p = lvalue(lv, c);
  if (!p) return;
  record(p, Poly(bytes(lv->getType(), lv)), Kind::Read, c, lv);
}

void Extractor::address(const Expr* lv, const Ctx& c) {
  if (lv->getType()->isFunctionType()) {
    mark(lv, "a function");
    return;
  }
  lvalue(lv, c);
}

void Extractor::normalise() {
  // A value loaded from a variable the kernel writes may differ between threads.
  for (Access& a : k_.accesses)
    if (a.value && a.value->rfind("load ", 0) == 0) {
      size_t from = a.value->rfind(' ', a.value->find('[')) + 1;
      std::string name = a.value->substr(from, a.value->find('[') - from);
      for (const Access& w : k_.accesses)
        if (w.write && w.array == name) a.value.reset();
    }
  std::map<std::string, int64_t> unit;
  for (size_t i = 0; i < k_.accesses.size(); ++i) {
    int64_t& g = unit[k_.accesses[i].array];
    g = coefficient_gcd(bytes_[i], coefficient_gcd(offsets_[i], g));
  }
  for (size_t i = 0; i < k_.accesses.size(); ++i) {
    Access& a = k_.accesses[i];
    // An unknown value or a jump makes the access an over-approximation.
    auto unknown = [](const Poly& x) {
      for (const std::string& v : x.free_vars())
        if (v.rfind("fm_any_", 0) == 0) return true;
      return false;
    };
    bool any = jumps_ || unknown(offsets_[i]) || unknown(bytes_[i]);
    for (const Formula& f : a.guards)
      for (const std::string& v : f.free_vars())
        any = any || v.rfind("fm_any_", 0) == 0;
    for (const LoopCtx& l : a.loops)
      any = any || unknown(l.lower) || unknown(l.count) || unknown(l.step);
    if (any) a.exact_guards = false;
    if (a.atomic) a.width = bytes_[i].constant().value_or(0);
    int64_t g = std::max<int64_t>(1, unit[a.array]);
    a.unit = g;
    a.index = *offsets_[i].exact_div(Poly(g));
    Poly count = *bytes_[i].exact_div(Poly(g));
    if (count == Poly(1)) continue;
    // A store wider than the object's unit may overlap another of its size in part (at
    // another alignment), where equal values put different bytes: no equal value.
    a.value.reset();
    LoopCtx l;
    l.var = "fm_unit_" + std::to_string(units_++);
    l.lower = 0;
    l.count = count;
    Poly u = Poly::var(l.var);
    l.facts = {ge(u, 0), lt(u, count)};
    a.loops.push_back(l);
    a.index = a.index + u;
  }
}

Extractor::Ctx Extractor::branch(const Ctx& c, const AbstractConditionalOperator* co, bool taken) {
  // `c ? x : y`: x is evaluated exactly where c holds, y where it does not.
  if (!isa<ConditionalOperator>(co)) return inexact(c);
  return branch_on(c, co->getCond(), taken);
}

Extractor::Ctx Extractor::branch_on(const Ctx& c, const Expr* cond, bool taken) {
  Ctx d = inexact(c);
  std::optional<Formula> f = formula(cond);
  flush(c); // the condition's checks, where it is evaluated
  if (!f) return d;
  d.exact = c.exact;
  add_guard(d.guards, taken ? *f : negation(*f));
  return d;
}

Extractor::Ctx Extractor::inexact(const Ctx& c) const {
  Ctx d = c;
  d.exact = false;
  d.conditional = true;
  return d;
}

void Extractor::escape(const Expr* lv) {
  const auto* d = dyn_cast<DeclRefExpr>(lv->IgnoreParenImpCasts());
  if (!d || !local(d->getDecl())) return;
  const ValueDecl* v = d->getDecl();
  escaped_.insert(v);
  if (v->getType()->isIntegerType()) env_.erase(v); // read afresh each time
  if (v->getType()->isPointerType()) {
    ptrs_.erase(v);
    bad_ptrs_[v] = "the address of the pointer '" + v->getNameAsString() + "' is taken";
  }
}

void Extractor::rvalue(const Expr* e, const Ctx& c) {
  if (!e) return;
  mark(e, "evaluated");
  if (const auto* p = dyn_cast<ParenExpr>(e)) return rvalue(p->getSubExpr(), c);
  // `__builtin_choose_expr(c, a, b)`, `_Generic(x, ...)`: only the branch selected at
  // compile time runs (not `x`).
  if (const auto* ch = dyn_cast<ChooseExpr>(e)) return rvalue(ch->getChosenSubExpr(), c);
  if (const auto* g = dyn_cast<GenericSelectionExpr>(e); g && !g->isResultDependent())
    return rvalue(g->getResultExpr(), c);
  if (const auto* f = dyn_cast<FullExpr>(e)) return rvalue(f->getSubExpr(), c);
  if (const auto* t = dyn_cast<MaterializeTemporaryExpr>(e)) return rvalue(t->getSubExpr(), c);
  if (isa<CXXBindTemporaryExpr>(e))
    throw NotAffine{"a temporary whose destructor runs at the end of the full-expression", e};
  if (const auto* d = dyn_cast<CXXDefaultArgExpr>(e)) return rvalue(d->getExpr(), c);
  if (const auto* d = dyn_cast<CXXDefaultInitExpr>(e)) {
    // `this` in a default member initialiser is the object being initialised (a local:
    // constructions in memory are refused), never the enclosing method's object.
    this_.push_back(std::nullopt);
    this_path_.push_back(std::nullopt);
    struct Pop {
      Extractor& x;
      ~Pop() {
        x.this_.pop_back();
        x.this_path_.pop_back();
      }
    } pop{*this};
    return rvalue(d->getExpr(), c);
  }
  if (const auto* ic = dyn_cast<ImplicitCastExpr>(e)) {
    switch (ic->getCastKind()) {
    case CK_LValueToRValue:
      return load(ic->getSubExpr(), c);
    case CK_ArrayToPointerDecay:
      return address(ic->getSubExpr(), c);
    default:
      return rvalue(ic->getSubExpr(), c);
    }
  }
  // `__builtin_bit_cast(T, x)` reads x's bytes.
  if (const auto* bc = dyn_cast<BuiltinBitCastExpr>(e)) return load(bc->getSubExpr(), c);
  if (const auto* ec = dyn_cast<ExplicitCastExpr>(e)) return rvalue(ec->getSubExpr(), c);
  if (const auto* u = dyn_cast<UnaryOperator>(e)) {
    if (u->getOpcode() == UO_AddrOf) {
      escape(u->getSubExpr());
      return address(u->getSubExpr(), c);
    }
    if (u->isIncrementDecrementOp()) return assign(u->getSubExpr(), nullptr, true, c, u);
    if (u->getOpcode() == UO_Deref) return address(e, c);
    return rvalue(u->getSubExpr(), c);
  }
  if (const auto* b = dyn_cast<BinaryOperator>(e)) {
    if (b->isAssignmentOp())
      return assign(b->getLHS(), b->getRHS(), b->isCompoundAssignmentOp(), c, b);
    rvalue(b->getLHS(), c);
    // `l && r` evaluates r exactly where l holds, `l || r` where it does not.
    rvalue(b->getRHS(),
           b->isLogicalOp() ? branch_on(c, b->getLHS(), b->getOpcode() == BO_LAnd) : c);
    return;
  }
  if (const auto* co = dyn_cast<AbstractConditionalOperator>(e)) {
    rvalue(co->getCond(), c);
    rvalue(co->getTrueExpr(), branch(c, co, true));
    rvalue(co->getFalseExpr(), branch(c, co, false));
    return;
  }
  if (const auto* call = dyn_cast<CallExpr>(e)) return call_expr(call, c);
  if (const auto* cc = dyn_cast<CXXConstructExpr>(e)) return construct(cc, std::nullopt, c);
  if (const auto* il = dyn_cast<InitListExpr>(e)) {
    for (const Expr* i : il->inits())
      rvalue(i, c);
    // The elements of an array left out of the list are made by its filler (a
    // construction, a default member initialiser's value); once suffices, as for an
    // array construction.
    if (il->hasArrayFiller()) rvalue(il->getArrayFiller(), c);
    return;
  }
  if (const auto* d = dyn_cast<DeclRefExpr>(e); d && isa<EnumConstantDecl>(d->getDecl())) {
    cover(e, "enumerator (a constant: no memory)");
    return;
  }
  if (isa<DeclRefExpr>(e) || isa<ArraySubscriptExpr>(e) || isa<MemberExpr>(e))
    return address(e, c); // an lvalue whose value is not read
  if (const auto* u = dyn_cast<UnaryExprOrTypeTraitExpr>(e)) {
    // The size of a variable-length array is computed when `sizeof` runs.
    if (u->getTypeOfArgument()->isVariablyModifiedType())
      throw NotAffine{"a sizeof of a variable-length array", e};
    cover(e, "not evaluated (sizeof)");
    return;
  }
  if (isa<IntegerLiteral>(e) || isa<FloatingLiteral>(e) || isa<CharacterLiteral>(e) ||
      isa<CXXBoolLiteralExpr>(e) || isa<StringLiteral>(e) || isa<CXXNullPtrLiteralExpr>(e) ||
      isa<GNUNullExpr>(e) || isa<ImplicitValueInitExpr>(e) || isa<CXXScalarValueInitExpr>(e) ||
      isa<ConstantExpr>(e) || isa<CXXThisExpr>(e))
    return;
  if (const auto* t = dyn_cast<SubstNonTypeTemplateParmExpr>(e))
    return rvalue(t->getReplacement(), c);
  // A lambda that captures nothing: its closure object holds no state (a call runs the
  // body, a conversion gives a function pointer, whose targets are the functions of its
  // type). One that captures (init-captures too) is refused below.
  if (const auto* l = dyn_cast<LambdaExpr>(e); l && l->capture_size() == 0) {
    cover(e, "a lambda that captures nothing (no memory)");
    return;
  }
  // Any other integer constant (`noexcept(e)`, `offsetof`, `sizeof...(Ts)`, a type
  // trait): its operands are not evaluated.
  if (!e->isValueDependent() && e->getType()->isIntegralOrEnumerationType() &&
      !e->HasSideEffects(ctx_) && e->isIntegerConstantExpr(ctx_)) {
    cover(e, "a constant (its operands not evaluated)");
    return;
  }
  throw NotAffine{
      std::string("the expression kind '") + e->getStmtClassName() + "' ('" + text(e) + "')", e};
}

void Extractor::assign(const Expr* lhs0, const Expr* rhs, bool compound, const Ctx& c,
                       const Expr* at) {
  const Expr* lhs = lhs0->IgnoreParens();
  if (rhs) rvalue(rhs, c);
  if (const auto* d = dyn_cast<DeclRefExpr>(lhs); d && local(d->getDecl())) {
    mark(d, "private (a local)");
    const ValueDecl* v = d->getDecl();
    for (const LoopCtx& l : c.loops)
      if (l.var == v->getNameAsString()) {
        unsupported(at, "the loop counter '" + l.var + "' is assigned in the loop body");
        return;
      }
    auto level = depth_of_.find(v);
    bool straight =
        (level != depth_of_.end() ? level->second == c.depth : c.loops.empty() && !c.divergent) &&
        !c.conditional && !escaped_.count(v);
    if (v->getType()->isIntegerType()) {
      // Followed in program order: branches join (see stmt), loops start and end
      // with unknowns (forget_assigned). A local whose address is taken is read
      // afresh each time; an assignment that may not run (an operand of ?:, && or
      // ||) leaves an unknown.
      if (escaped_.count(v)) return;
      Poly value;
      attach(v, checks_of([&] {
               value = c.conditional
                           ? any(at->getBeginLoc(), v, "assigned where the assignment may not run")
                       : !compound
                           ? poly(rhs)
                           : updated(env_.count(v)
                                         ? env_.at(v)
                                         : any(at->getBeginLoc(), v, "updated, its value unknown"),
                                     at, rhs);
               if (compound && !c.conditional) value = stored(value, v->getType(), at);
             }));
      env_[v] = value;
    } else if (v->getType()->isPointerType() || is_fm_mem(v->getType())) {
      ptrs_.erase(v);
      bad_ptrs_[v] = "the pointer '" + v->getNameAsString() + "' is reassigned";
      if (!compound && rhs && straight) {
        try {
          attach(v, checks_of(
                        [&] { ptrs_[v] = is_fm_mem(v->getType()) ? block(rhs, c) : ptr(rhs, c); }));
          bad_ptrs_.erase(v);
        } catch (const NotAffine&) {
        }
      }
    }
    return;
  }
  if (isa<MemberExpr>(lhs) && broken_ == "unvisited-member-stores") return;
  Target p = lvalue(lhs, c);
  if (isa<MemberExpr>(lhs) && broken_ == "dropped-member-stores") return;
  Poly size(bytes(lhs->getType(), lhs));
  if (compound) record(p, size, Kind::Read, c, lhs);
  if (!compound && rhs) {
    value_ = uniform_value(rhs);
    stored_if_.clear();
    stored_ = stored_value(rhs, stored_if_);
  }
  record(p, size, Kind::Write, c, lhs);
  value_.reset();
  stored_.reset();
  stored_if_.clear();
}

bool Extractor::local(const ValueDecl* d) const {
  const auto* v = dyn_cast<VarDecl>(d);
  return v && !v->hasGlobalStorage() && !v->hasAttr<CUDASharedAttr>() &&
         !v->getType()->isReferenceType() && !refs_.count(v);
}

bool Extractor::block_uniform(const Formula& f, const Ctx& c) {
  for (const std::string& v : f.free_vars()) {
    if (v.rfind("threadIdx_", 0) == 0 || v.rfind("fm_any_", 0) == 0) return false;
    for (const LoopCtx& l : c.loops)
      if (l.var == v) return false;
  }
  return true;
}

void Extractor::barrier(const Stmt* s, const Ctx& c) {
  ++k_.barriers;
  if (c.divergent) {
    unsupported(s, "__syncthreads() inside a condition or nested statement (divergence)");
    return;
  }
  if (c.returned) {
    unsupported(s, "__syncthreads() after a thread-dependent early return, or after an early "
                   "return of a device function, whose caller goes on (barrier divergence)");
    return;
  }
  // An operand of ?:, && or || may not be evaluated: a barrier there may not run.
  if (c.conditional) {
    unsupported(s, "__syncthreads() in an operand of ?:, && or || (barrier divergence)");
    return;
  }
  if (jumps_) {
    unsupported(s, "__syncthreads() in a function with goto (divergence is not excluded)");
    return;
  }
  ++phase_;
  phase_accesses_ = 0;
}

} // namespace funmem::frontend::detail
