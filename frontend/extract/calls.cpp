// The extractor's calls (extractor.h): direct calls inlined with their arguments bound,
// calls through function pointers, returned pointers and constructions.
#include "frontend/extract/extractor.h"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Builtins.h>

#include <set>

namespace funmem::frontend::detail {

std::vector<const FunctionDecl*> indirect_callees(ASTContext& ctx, QualType fn,
                                                  std::optional<FunctionAddresses>& cache) {
  if (!cache) cache = function_addresses(ctx);
  std::vector<const FunctionDecl*> out;
  if (!fn->isFunctionType()) return out; // a bound member function (`(s.*m)()`)
  if (cache->converted) return cache->functions;
  // A pointer to a `noexcept` or `noreturn` function, or to one whose parameters are
  // `noescape`, converts to one without: a call through either type may reach both.
  for (const FunctionDecl* f : cache->functions)
    if (reachable_through(ctx, f->getType(), fn)) out.push_back(f);
  return out;
}

/// Clang's builtins that do not evaluate their operands (`__builtin_constant_p(p[0] = 1)`
/// stores nothing).
bool unevaluated_builtin(const FunctionDecl* f) {
  switch (f->getBuiltinID()) {
  case Builtin::BI__builtin_constant_p:
  case Builtin::BI__builtin_classify_type:
  case Builtin::BI__builtin_assume:
    return true;
  default:
    return false;
  }
}

/// The call operator a lambda's static invoker runs: the lambda's, or for a generic
/// lambda the instantiation with the invoker's parameter types (null if none).
const CXXMethodDecl* lambda_operator(const CXXMethodDecl* invoker) {
  const CXXRecordDecl* lambda = invoker->getParent();
  if (!lambda->isGenericLambda()) return lambda->getLambdaCallOperator();
  const FunctionTemplateDecl* t = lambda->getDependentLambdaCallOperator();
  if (!t) return nullptr;
  for (const FunctionDecl* op : t->specializations()) {
    if (op->getNumParams() != invoker->getNumParams()) continue;
    bool same = true;
    for (unsigned i = 0; i < op->getNumParams(); ++i)
      same = same && invoker->getASTContext().hasSameType(op->getParamDecl(i)->getType(),
                                                          invoker->getParamDecl(i)->getType());
    if (same) return cast<CXXMethodDecl>(op);
  }
  return nullptr;
}

QualType called_type(const CallExpr* c) {
  QualType t = c->getCallee()->getType();
  return t->isPointerType() ? t->getPointeeType() : t;
}

void Extractor::argument_order(const Expr* const* args, unsigned n, const Expr* at) {
  if (std::optional<std::string> why = unsequenced_arguments(args, n))
    throw NotAffine{"arguments whose order of evaluation C++ leaves unspecified: " + *why, at};
}

void Extractor::call_expr(const CallExpr* call, const Ctx& c) {
  mark(call, "call");
  // The operators whose operands C++17 sequences are evaluated in their order.
  const auto* op = dyn_cast<CXXOperatorCallExpr>(call);
  const OverloadedOperatorKind ok = op ? op->getOperator() : OO_None;
  const bool sequenced = op && (op->isAssignmentOp() || ok == OO_LessLess ||
                                ok == OO_GreaterGreater || ok == OO_AmpAmp || ok == OO_PipePipe ||
                                ok == OO_Comma || ok == OO_Subscript || ok == OO_ArrowStar);
  if (!sequenced) argument_order(call->getArgs(), call->getNumArgs(), call);
  // A launch from device code starts a grid of its own, whose threads run the kernel
  // with their own indices: no call of the launching thread.
  if (isa<CUDAKernelCallExpr>(call))
    throw NotAffine{"a kernel launch from device code (dynamic parallelism)", call};
  const FunctionDecl* f = call->getDirectCallee();
  if (!f) return indirect_call(call, c);
  if (const auto* m = dyn_cast<MemberExpr>(call->getCallee()->IgnoreParenImpCasts()))
    mark(m, "the called method");
  std::string n = f->getNameAsString();
  const auto* method = dyn_cast<CXXMethodDecl>(f);
  // A virtual call reaches the override of the object's dynamic type: followed only
  // when Clang can name it (a complete object, a final class or method, `B::f()`).
  if (method && method->isVirtual()) {
    const Expr* base = nullptr;
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call))
      base = mc->getImplicitObjectArgument();
    else if (isa<CXXOperatorCallExpr>(call) && call->getNumArgs() > 0)
      base = call->getArg(0);
    const auto* me = dyn_cast<MemberExpr>(call->getCallee()->IgnoreParenImpCasts());
    const CXXMethodDecl* d = base ? method->getDevirtualizedMethod(base, false) : nullptr;
    if (!(me && me->hasQualifier()) && !d) {
      // The census reaches the static callee's body: it is part of what is not followed.
      if (const FunctionDecl* def = method->getDefinition())
        cover(def->getBody(), "inside an unsupported construct");
      throw NotAffine{"a virtual call of '" + method->getQualifiedNameAsString() +
                          "' whose object's dynamic type is not known (an override may run)",
                      call};
    }
    if (d && !(me && me->hasQualifier()) && d->hasBody()) f = d;
  }
  // A trivial copy or move of a structure: a read of the source, a write of the target.
  if (method && method->isTrivial() &&
      (method->isCopyAssignmentOperator() || method->isMoveAssignmentOperator())) {
    const Expr *to = call->getArg(0), *from = call->getArg(1);
    if (isa<CXXMemberCallExpr>(call)) {
      to = cast<CXXMemberCallExpr>(call)->getImplicitObjectArgument();
      from = call->getArg(0);
    }
    // A local memory block made to name another block (generated code): followed as
    // a pointer is.
    if (const auto* d = dyn_cast<DeclRefExpr>(to->IgnoreParens());
        d && is_fm_mem(d->getType()) && local(d->getDecl())) {
      mark(call, "memory block assignment");
      return assign(to, from, false, c, call);
    }
    load(from, c);
    Target p = lvalue(to, c);
    record(p, Poly(bytes(to->getType(), to)), Kind::Write, c, to);
    mark(call, "structure assignment");
    return;
  }
  if ((in_header(f) && !f->doesThisDeclarationHaveABody()) || n == "__builtin_memcpy" ||
      n == "__builtin_memset") {
    builtin_call(call, n, c);
    return;
  }
  inline_call(call, f, c);
}

std::optional<Extractor::Target> Extractor::returned_pointer(const CallExpr* call, const Ctx& c) {
  const FunctionDecl* f = call->getDirectCallee();
  const FunctionDecl* d = f ? f->getDefinition() : nullptr;
  if (!d || !d->hasBody() || in_header(d) || isa<CXXMethodDecl>(d) || d->isVariadic() ||
      std::find(inlined_.begin(), inlined_.end(), d) != inlined_.end())
    return std::nullopt;
  const auto* body = dyn_cast<CompoundStmt>(d->getBody());
  if (!body || body->body_empty()) return std::nullopt;
  const auto* ret = dyn_cast<ReturnStmt>(body->body_back());
  if (!ret || !ret->getRetValue()) return std::nullopt;
  for (const Stmt* s : body->body())
    if (s != ret && !(isa<Expr>(s) && only_annotations(cast<Expr>(s)))) return std::nullopt;
  bind(d, std::vector<const Expr*>(call->arg_begin(), call->arg_end()), c);
  for (const Stmt* s : body->body())
    if (s != ret) cover(s, "GPUVerify annotation (a specification: not executed, not trusted)");
  mark(call, "inlined call of " + f->getNameAsString() + " (the pointer it returns)");
  inlined_.push_back(d);
  Target t = ptr(ret->getRetValue(), c);
  inlined_.pop_back();
  return t;
}

void Extractor::indirect_call(const CallExpr* call, const Ctx& c) {
  const Expr* callee = call->getCallee()->IgnoreParenImpCasts();
  // `(s.*m)()`, `(p->*m)()`: the callee is a bound member function, not a function type.
  if (!called_type(call)->isFunctionType())
    throw NotAffine{"a call through a pointer to member function ('" + text(call) + "')", call};
  if (const auto* u = dyn_cast<UnaryOperator>(callee); u && u->getOpcode() == UO_Deref) {
    mark(u, "the called function (a function pointer dereferenced: no memory)");
    callee = u->getSubExpr()->IgnoreParenImpCasts();
  }
  // The pointer's value: a local or a parameter is no memory; anything else is read.
  if (const auto* d = dyn_cast<DeclRefExpr>(callee); !(d && local(d->getDecl())))
    rvalue(callee, c);
  else
    mark(d, "the called function pointer (a local)");
  std::vector<const FunctionDecl*> fs = indirect_callees(ctx_, called_type(call), address_taken_);
  if (fs.empty())
    throw NotAffine{"an indirect call ('" + text(call) +
                        "') where no function of its type has its address taken in the file",
                    call};
  Ctx inner = c;
  inner.divergent = true;
  inner.exact = false;
  inner.conditional = true;
  ++inner.depth;
  // A candidate of another type (the file converts function addresses): its body is
  // still followed where it can be (every node it reaches is accounted for), and the
  // call is unsupported.
  const FunctionDecl* other = nullptr;
  for (const FunctionDecl* f : fs) {
    if (reachable_through(ctx_, f->getType(), called_type(call))) {
      inline_call(call, f, inner);
      continue;
    }
    other = other ? other : f;
    try {
      inline_call(call, f, inner);
    } catch (const NotAffine&) {
    }
  }
  if (other)
    throw NotAffine{"an indirect call ('" + text(call) + "') that may reach '" +
                        other->getNameAsString() +
                        "', of another type (the file converts function addresses between types)",
                    call};
  mark(call, "indirect call of any of " + std::to_string(fs.size()) + " function(s)");
  k_.indirect_calls = true;
}

void Extractor::bind(const FunctionDecl* d, const std::vector<const Expr*>& args, const Ctx& c) {
  for (unsigned i = 0; i < d->getNumParams(); ++i) {
    const ParmVarDecl* p = d->getParamDecl(i);
    const Expr* a = i < args.size() ? args[i] : p->getDefaultArg();
    if (!a)
      throw NotAffine{"a call of '" + d->getNameAsString() + "' without argument " +
                      std::to_string(i + 1)};
    QualType t = p->getType();
    env_.erase(p);
    ptrs_.erase(p);
    bad_ptrs_.erase(p);
    refs_.erase(p);
    depth_of_[p] = c.depth;
    if (t->isReferenceType()) {
      escape(a);
      refs_[p] = lvalue(a, c);
    } else if (t->isPointerType() || is_fm_mem(t)) {
      try {
        attach(p, checks_of([&] { ptrs_[p] = is_fm_mem(t) ? block(a, c) : ptr(a, c); }));
      } catch (const NotAffine& e) {
        // Followed only if it is used; what the argument reads is read here.
        bad_ptrs_[p] = "the pointer '" + p->getNameAsString() + "': " + e.why;
        rvalue(a, c);
      }
    } else {
      rvalue(a, c);
      if (t->isIntegerType()) attach(p, checks_of([&] { env_[p] = poly(a); }));
    }
  }
}

bool Extractor::changed(const Stmt* body, const ParmVarDecl* p) const {
  auto hits = [p](const Expr* lv) {
    const Expr* r = storage_root(lv);
    if (isa<CXXThisExpr>(r)) return true;
    const auto* d = dyn_cast<DeclRefExpr>(r);
    return d && d->getDecl() == p;
  };
  std::set<const FunctionDecl*> seen;
  return reaches(body, seen, [&](const Stmt* x) {
    if (const auto* b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp())
      return hits(b->getLHS());
    if (const auto* u = dyn_cast<UnaryOperator>(x);
        u && (u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf))
      return hits(u->getSubExpr());
    if (const auto* ds = dyn_cast<DeclStmt>(x))
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d);
            v && v->getType()->isReferenceType() && v->getInit() && hits(v->getInit()))
          return true;
    // A method whose body is not followed (a trivial assignment, say) on the object.
    if (const auto* call = dyn_cast<CallExpr>(x))
      if (const auto* m = dyn_cast_or_null<CXXMethodDecl>(call->getDirectCallee());
          m && !m->isStatic() && !m->isConst() && (m->isTrivial() || !m->getDefinition())) {
        const Expr* obj = nullptr;
        if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call))
          obj = mc->getImplicitObjectArgument();
        else if (isa<CXXOperatorCallExpr>(call) && call->getNumArgs() > 0)
          obj = call->getArg(0);
        if (obj && hits(obj)) return true;
      }
    if (const auto* call = dyn_cast<CallExpr>(x))
      if (const FunctionDecl* f = call->getDirectCallee())
        for (unsigned i = 0; i < call->getNumArgs() && i < f->getNumParams(); ++i)
          if (f->getParamDecl(i)->getType()->isReferenceType() &&
              !f->getParamDecl(i)->getType().getNonReferenceType().isConstQualified() &&
              hits(call->getArg(i)))
            return true;
    return false;
  });
}

void Extractor::inline_call(const CallExpr* call, const FunctionDecl* f, const Ctx& c) {
  // A captureless lambda's conversion to a function pointer yields its static invoker,
  // which Clang gives no body: a call of it runs the lambda's call operator.
  if (const auto* m = dyn_cast<CXXMethodDecl>(f); m && m->isLambdaStaticInvoker()) {
    const CXXMethodDecl* op = lambda_operator(m);
    if (!op)
      throw NotAffine{"a call through the function pointer of a generic lambda ('" + text(call) +
                          "') whose call operator is not instantiated for it",
                      call};
    f = op;
  }
  const FunctionDecl* d = f->getDefinition();
  if (!d || !d->hasBody()) {
    // Clang's builtins whose operands are not evaluated: no access of theirs runs.
    if (unevaluated_builtin(f)) {
      for (const Expr* a : call->arguments())
        cover(a, "not evaluated (an operand of " + f->getNameAsString() + ")");
      mark(call, "built-in function (operands not evaluated)");
      return;
    }
    // Defined elsewhere (or nowhere): given values only, it reaches none of the
    // kernel's memory unless the file has `__device__` variables other files see.
    // An argument bound to a reference parameter is its object's address; an integer
    // made from a pointer (`(unsigned long long)p`) is one too.
    std::function<bool(const Stmt*)> from_pointer = [&](const Stmt* x) {
      if (!x) return false;
      if (const auto* ce = dyn_cast<CastExpr>(x); ce && ce->getCastKind() == CK_PointerToIntegral)
        return true;
      for (const Stmt* k : x->children())
        if (from_pointer(k)) return true;
      return false;
    };
    bool values = !isa<CXXMemberCallExpr>(call) && !external_globals_;
    for (const Expr* a : call->arguments())
      values = values && !holds_pointer(a->getType()) && !from_pointer(a);
    for (const ParmVarDecl* p : f->parameters())
      values = values && !p->getType()->isReferenceType();
    if (!values)
      throw NotAffine{"a call of '" + f->getNameAsString() +
                          "', whose body is not available, with a pointer or reference "
                          "argument or visible __device__ variables",
                      call};
    for (const Expr* a : call->arguments())
      rvalue(a, c);
    // One the program declares (compiled elsewhere), not CUDA's library or a Clang
    // builtin: the verdict assumes it touches none of the kernel's memory, as GPUVerify
    // does, and says so.
    if (!in_header(f) && !f->getBuiltinID()) {
      std::string n = f->getQualifiedNameAsString();
      if (std::find(k_.bodyless_calls.begin(), k_.bodyless_calls.end(), n) ==
          k_.bodyless_calls.end())
        k_.bodyless_calls.push_back(n);
    }
    mark(call, "a call of " + f->getNameAsString() +
                   " without a body: values only, none of the kernel's memory (assumed)");
    return;
  }
  if (std::find(inlined_.begin(), inlined_.end(), d) != inlined_.end() || inlined_.size() > 16)
    throw NotAffine{"a recursive call of '" + f->getNameAsString() + "'", call};
  if (d->isVariadic()) throw NotAffine{"a call of the variadic '" + f->getNameAsString() + "'"};
  std::vector<const Expr*> args(call->arg_begin(), call->arg_end());
  Target self;
  std::optional<ParamPlace> self_path;
  bool method = false;
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
    const Expr* obj = mc->getImplicitObjectArgument();
    const auto* me = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens());
    self = me && me->isArrow() ? ptr(obj, c) : lvalue(obj, c);
    if (!(me && me->isArrow())) self_path = param_place(obj);
    method = true;
  } else if (isa<CXXOperatorCallExpr>(call) && isa<CXXMethodDecl>(d) &&
             !cast<CXXMethodDecl>(d)->isStatic()) {
    self = lvalue(call->getArg(0), c);
    self_path = param_place(call->getArg(0));
    args.erase(args.begin());
    method = true;
  }
  bind(d, args, c);
  if (method) {
    this_.push_back(self);
    this_path_.push_back(self_path);
  }
  inlined_.push_back(d);
  mark(call, "inlined call of " + f->getNameAsString());
  Ctx inner = c;
  block_items(d->getBody(), inner);
  inlined_.pop_back();
  if (method) {
    this_.pop_back();
    this_path_.pop_back();
  }
}

void Extractor::construct(const CXXConstructExpr* cc, const Target& target, const Ctx& c) {
  mark(cc, "construction");
  if (!cc->isListInitialization() && !cc->isStdInitListInitialization())
    argument_order(cc->getArgs(), cc->getNumArgs(), cc);
  const CXXConstructorDecl* ctor = cc->getConstructor();
  if (ctor->isTrivial() || (ctor->isDefaulted() && ctor->getParent()->isPOD() &&
                            (ctor->isCopyConstructor() || ctor->isMoveConstructor()))) {
    if ((ctor->isCopyConstructor() || ctor->isMoveConstructor()) && cc->getNumArgs() >= 1)
      load(cc->getArg(0), c);
    record(target, Poly(bytes(cc->getType(), cc)), Kind::Write, c, cc);
    return;
  }
  if (target) throw NotAffine{"a non-trivial construction of an object in memory", cc};
  const CXXRecordDecl* r = ctor->getParent();
  if (r->getNumBases() > 0) throw NotAffine{"a construction of a derived class", cc};
  const auto* d = dyn_cast_or_null<CXXConstructorDecl>(ctor->getDefinition());
  if (!d) throw NotAffine{"a constructor whose body is not available", cc};
  if (std::find(inlined_.begin(), inlined_.end(), d) != inlined_.end())
    throw NotAffine{"a recursive construction", cc};
  bind(d, std::vector<const Expr*>(cc->arg_begin(), cc->arg_end()), c);
  this_.push_back(std::nullopt);
  this_path_.push_back(std::nullopt);
  inlined_.push_back(d);
  // Every initialiser, also the implicit ones: default member initialisers and the
  // constructions of members and array elements that the constructor does not name.
  for (const CXXCtorInitializer* i : d->inits())
    rvalue(i->getInit(), c);
  Ctx inner = c;
  block_items(d->getBody(), inner);
  inlined_.pop_back();
  this_.pop_back();
  this_path_.pop_back();
}

} // namespace funmem::frontend::detail
