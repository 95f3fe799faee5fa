// The extractor's statements (extractor.h): blocks, early returns, branches, local
// declarations, and what a statement may change.
#include "frontend/extract/extractor.h"

namespace funmem::frontend::detail {

void Extractor::assigned_in(const Stmt* s, std::set<const ValueDecl*>& out) {
  if (!s) return;
  auto target = [&](const Expr* e) {
    if (const auto* d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts())) out.insert(d->getDecl());
  };
  if (const auto* b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp()) target(b->getLHS());
  if (const auto* u = dyn_cast<UnaryOperator>(s);
      u && (u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf))
    target(u->getSubExpr());
  if (const auto* ds = dyn_cast<DeclStmt>(s))
    for (const Decl* d : ds->decls())
      if (const auto* v = dyn_cast<VarDecl>(d);
          v && v->getType()->isReferenceType() && v->getInit())
        target(v->getInit());
  if (const auto* call = dyn_cast<CallExpr>(s))
    if (const FunctionDecl* f = call->getDirectCallee()) {
      // An operator that is a method takes its object as argument 0.
      const auto* m = dyn_cast<CXXMethodDecl>(f);
      unsigned skip = isa<CXXOperatorCallExpr>(call) && m && !m->isStatic() ? 1 : 0;
      for (unsigned i = skip; i < call->getNumArgs() && i - skip < f->getNumParams(); ++i)
        if (QualType t = f->getParamDecl(i - skip)->getType();
            t->isReferenceType() && !t->getPointeeType().isConstQualified())
          target(call->getArg(i));
      // A method that may change its object (`x = y` of a structure is one).
      if (m && !m->isStatic() && !m->isConst()) {
        if (skip) target(call->getArg(0));
        if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call))
          target(mc->getImplicitObjectArgument());
      }
    }
  for (const Stmt* c : s->children())
    assigned_in(c, out);
}

void Extractor::forget_assigned(const Stmt* body, const std::string& except) {
  std::set<const ValueDecl*> vs;
  assigned_in(body, vs);
  for (const ValueDecl* v : vs) {
    if (v->getNameAsString() == except) continue;
    // Locals declared inside `body` get their values when they are declared.
    if (v->getType()->isIntegerType() && env_.count(v))
      env_[v] = any(body->getBeginLoc(), v,
                    "assigned in a loop (at an iteration's start, after the loop)");
    if (ptrs_.erase(v) || v->getType()->isPointerType())
      bad_ptrs_[v] = "the pointer '" + v->getNameAsString() + "' is reassigned in a loop";
  }
}

void Extractor::block_items(const Stmt* s, Ctx c) {
  if (const auto* cs = dyn_cast<CompoundStmt>(s)) {
    for (const Stmt* child : cs->body()) {
      // `if (cond) return a; else ...` ending the block: the else branch is the rest.
      if (const auto* i = dyn_cast<IfStmt>(child);
          i && i->getElse() && returns(i->getThen()) && child == cs->body_back()) {
        early_return(i, c);
        tail(i->getElse(), c);
        continue;
      }
      // `if (cond) return;`: the rest runs only when cond is false.
      if (const auto* i = dyn_cast<IfStmt>(child); i && !i->getElse() && returns(i->getThen())) {
        early_return(i, c);
        continue;
      }
      // `return e;` ending a device function.
      if (const auto* r = dyn_cast<ReturnStmt>(child);
          r && !inlined_.empty() && child == cs->body_back()) {
        mark(r, "return");
        guarded(r, [&] { rvalue(r->getRetValue(), c); });
        continue;
      }
      stmt(child, c);
    }
    return;
  }
  stmt(s, c);
}

void Extractor::tail(const Stmt* s, Ctx& c) {
  if (const auto* r = dyn_cast<ReturnStmt>(s); r && (!inlined_.empty() || !r->getRetValue())) {
    mark(r, "return");
    if (r->getRetValue()) guarded(r, [&] { rvalue(r->getRetValue(), c); });
    return;
  }
  if (const auto* i = dyn_cast<IfStmt>(s); i && returns(i->getThen())) {
    early_return(i, c);
    if (i->getElse()) tail(i->getElse(), c);
    return;
  }
  block_items(s, c);
}

void Extractor::early_return(const IfStmt* i, Ctx& c) {
  auto f = formula(i->getCond());
  flush(c); // the condition's checks, where it is evaluated
  guarded(i, [&] {
    rvalue(i->getCond(), c);
    // `if (cond) return e;` in a device function: e is evaluated when cond holds.
    const auto* r = dyn_cast<ReturnStmt>(i->getThen());
    if (!r) r = cast<ReturnStmt>(cast<CompoundStmt>(i->getThen())->body_front());
    mark(r, "return");
    if (r->getRetValue()) {
      if (inlined_.empty()) throw NotAffine{"a return with a value in a kernel", r};
      Ctx then = f ? c : inexact(c);
      if (f) add_guard(then.guards, *f);
      then.divergent = true; // a barrier under the condition is not followed
      rvalue(r->getRetValue(), then);
    }
  });
  if (f)
    add_guard(c.guards, negation(*f));
  else
    c.exact = false;
  // Threads of one block that leave early never reach a later barrier. In a device
  // function even a uniform return skips the function's later barriers while the caller
  // goes on: those barriers separate nothing for certain.
  bool per_thread = !f || !block_uniform(*f, c);
  c.returned = c.returned || per_thread || !inlined_.empty();
}

bool Extractor::returns(const Stmt* s) {
  if (isa<ReturnStmt>(s)) return true;
  if (const auto* cs = dyn_cast<CompoundStmt>(s))
    return cs->size() == 1 && isa<ReturnStmt>(cs->body_front());
  return false;
}

void Extractor::stmt(const Stmt* s, const Ctx& c) {
  if (!s) return;
  if (isa<NullStmt>(s)) return;
  // `#pragma unroll`, `[[likely]]`, `[[fallthrough]]`: hints that change nothing a
  // thread computes.
  if (const auto* a = dyn_cast<AttributedStmt>(s)) return stmt(a->getSubStmt(), c);
  if (const auto* cs = dyn_cast<CompoundStmt>(s)) {
    Ctx inner = c;
    block_items(cs, inner);
    // The block's own names are not visible after it: a later access's scope must see
    // the declaration in force there, not one of an ended block of the same name.
    for (const Stmt* child : cs->body())
      if (const auto* ds = dyn_cast<DeclStmt>(child))
        for (const Decl* d : ds->decls())
          if (const auto* v = dyn_cast<VarDecl>(d)) env_.erase(v);
    return;
  }
  if (const auto* ds = dyn_cast<DeclStmt>(s)) {
    guarded(s, [&] {
      for (const Decl* d : ds->decls()) {
        if (const auto* v = dyn_cast<VarDecl>(d))
          var_decl(v, c);
        else if (!isa<TypeDecl>(d) && !isa<StaticAssertDecl>(d))
          throw NotAffine{std::string("the declaration kind '") + d->getDeclKindName() + "'"};
      }
    });
    return;
  }
  if (const auto* e = dyn_cast<Expr>(s)) {
    guarded(s, [&] { rvalue(e, c); });
    return;
  }
  if (const auto* i = dyn_cast<IfStmt>(s)) {
    if_stmt(i, c);
    return;
  }
  if (const auto* f = dyn_cast<ForStmt>(s)) {
    for_stmt(f, c);
    return;
  }
  if (const auto* w = dyn_cast<WhileStmt>(s)) {
    if (w->getConditionVariable()) {
      unsupported(s, "a while with a condition variable");
      return;
    }
    any_loop(w, w->getCond(), nullptr, w->getBody(), c, false);
    return;
  }
  if (const auto* d = dyn_cast<DoStmt>(s)) {
    any_loop(d, d->getCond(), nullptr, d->getBody(), c, true);
    return;
  }
  // Jumps: what follows them in their block or loop may not run, which the enclosing
  // loop's inexactness (has_jump) already says; they touch no memory.
  if (isa<BreakStmt>(s) || isa<ContinueStmt>(s) || isa<GotoStmt>(s)) {
    mark(s, "jump (no memory)");
    return;
  }
  // A label: reached by a jump from anywhere in the function, so under none of the
  // enclosing conditions, with any value in the locals the function assigns.
  if (const auto* l = dyn_cast<LabelStmt>(s)) {
    label_stmt(l, c);
    return;
  }
  if (isa<ReturnStmt>(s)) {
    unsupported(s, inlined_.empty() ? "a return other than `if (cond) return;` in the kernel body"
                                    : "a return inside a nested statement of a device function");
    return;
  }
  unsupported(s, std::string("the statement '") + s->getStmtClassName() + "'");
}

void Extractor::if_stmt(const IfStmt* i, const Ctx& c) {
  if (i->getInit() || i->getConditionVariable()) {
    unsupported(i, "an if with an initialiser or a condition variable");
    return;
  }
  bool ok = true;
  guarded(i->getCond(), [&] {
    ok = false;
    rvalue(i->getCond(), c);
    ok = true;
  });
  if (!ok) return;
  auto f = formula(i->getCond());
  flush(c); // the condition's checks, where it is evaluated
  Ctx t = c, e = c;
  // A condition every thread of a block evaluates alike keeps them together: a
  // barrier under it is no divergence (but separates nothing, as the other branch
  // has none).
  bool uniform = !c.divergent && !c.returned && f && block_uniform(*f, c);
  t.divergent = e.divergent = !uniform;
  t.uniform = e.uniform = c.uniform || uniform;
  ++t.depth;
  ++e.depth;
  if (f) {
    add_guard(t.guards, *f);
    add_guard(e.guards, negation(*f));
  } else {
    t.exact = e.exact = false;
  }
  // The locals after the if: where the branches leave different values, any value.
  // Under a uniform condition both branches start in the barrier interval before
  // the if (no thread of the block runs the other branch, and the guards say so).
  std::map<const ValueDecl*, Poly> before = env_;
  int p0 = phase_;
  stmt(i->getThen(), t);
  int p_then = phase_;
  phase_ = p0;
  std::map<const ValueDecl*, Poly> after_then = std::move(env_);
  env_ = std::move(before);
  if (i->getElse()) stmt(i->getElse(), e);
  if (phase_ != p_then) {
    // Branches with different numbers of barriers: the intervals after the if
    // depend on the branch; followed only when no access comes after the if. In a
    // loop the next iteration's accesses come after it, whatever the text's order.
    if (!c.loops.empty())
      unsupported(i, "__syncthreads() in one branch of a uniform condition and not as often in "
                     "the other, inside a loop (the next iteration's accesses follow it)");
    if (!uneven_) {
      uneven_ = i;
      uneven_accesses_ = k_.accesses.size();
    }
    phase_ = std::max(phase_, p_then);
  }
  std::map<const ValueDecl*, Poly> joined;
  for (const auto& [v, p] : after_then)
    if (auto it = env_.find(v); it != env_.end())
      joined[v] =
          it->second == p ? p : any(i->getBeginLoc(), v, "assigned differently in the branches");
  env_ = std::move(joined);
}

void Extractor::label_stmt(const LabelStmt* l, const Ctx& c) {
  if (!c.loops.empty()) {
    unsupported(l, "a label inside a loop it summarises");
    return;
  }
  const Stmt* body = inlined_.empty() ? body_ : inlined_.back()->getBody();
  forget_assigned(body, "");
  Ctx inner = c;
  inner.guards.clear();
  inner.exact = false;
  inner.divergent = true;
  stmt(l->getSubStmt(), inner);
}

void Extractor::var_decl(const VarDecl* v, const Ctx& c) {
  QualType t = v->getType();
  std::string n = v->getNameAsString();
  const Expr* init = v->getInit();
  if (v->hasAttr<CUDASharedAttr>() || v->hasGlobalStorage()) {
    bool shared = v->hasAttr<CUDASharedAttr>();
    object(v, n, shared ? Space::Shared : Space::Global);
    // A trivial default construction writes nothing (CUDA allows no other for
    // __shared__ variables).
    if (const auto* cc = dyn_cast_or_null<CXXConstructExpr>(init);
        cc && cc->getConstructor()->isTrivial() && cc->getNumArgs() == 0) {
      cover(cc, "trivial default construction (no access)");
      return;
    }
    if (init) throw NotAffine{"the variable '" + n + "' with an initialiser", init};
    return;
  }
  depth_of_[v] = c.depth;
  escaped_.erase(v); // a new object
  env_.erase(v);
  ptrs_.erase(v);
  bad_ptrs_.erase(v);
  refs_.erase(v);
  if (t->isReferenceType()) {
    if (!init) throw NotAffine{"the reference '" + n + "' without a target", v->getInit()};
    escape(init);
    refs_[v] = lvalue(init, c);
    return;
  }
  if (t->isPointerType() || is_fm_mem(t)) {
    if (!init) {
      bad_ptrs_[v] = "the pointer '" + n + "' has no initial value";
      return;
    }
    try {
      attach(v, checks_of([&] { ptrs_[v] = is_fm_mem(t) ? block(init, c) : ptr(init, c); }));
    } catch (const NotAffine& e) {
      // Followed only if it is used; what the initial value reads is read here.
      bad_ptrs_[v] = "the pointer '" + n + "': " + e.why;
      rvalue(init, c);
    }
    return;
  }
  if (const auto* r = t->getAsCXXRecordDecl(); r && r->hasNonTrivialDestructor())
    throw NotAffine{"the local '" + n + "' with a destructor", init};
  if (const auto* cc = dyn_cast_or_null<CXXConstructExpr>(init))
    construct(cc, std::nullopt, c);
  else if (init)
    rvalue(init, c);
  // An integer without an initial value holds any value.
  if (t->isIntegerType())
    attach(v, checks_of([&] {
             env_[v] = init ? poly(init) : any(v->getLocation(), v, "declared without a value");
           }));
}

} // namespace funmem::frontend::detail
