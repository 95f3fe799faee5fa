// Calls the race detector cannot instrument inside (see unseen.h).
#include "frontend/dynamic/unseen.h"

#include "frontend/cuda/parse.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>

namespace funmem::frontend::detail {

using namespace clang;

namespace {

/// Whether the place `e` names is the thread's own: a local variable (not a reference,
/// not `__shared__`), a temporary, a literal, or a member or element of one.
bool private_place(const Expr* e) {
  bool array = false;
  for (const Expr* x = e;;) {
    x = x->IgnoreParens();
    if (x->isPRValue() || isa<MaterializeTemporaryExpr>(x) || isa<StringLiteral>(x) ||
        isa<CompoundLiteralExpr>(x))
      return true;
    const auto* c = dyn_cast<ImplicitCastExpr>(x);
    if (!c || (c->getCastKind() != CK_NoOp && c->getCastKind() != CK_DerivedToBase &&
               c->getCastKind() != CK_UncheckedDerivedToBase))
      break;
    x = c->getSubExpr();
  }
  return local_root(e, array) != nullptr;
}

/// Whether a pointer value can only point into the thread's own places.
bool private_pointer(ASTContext& ctx, const Expr* e) {
  e = e->IgnoreParens();
  if (e->isNullPointerConstant(ctx, Expr::NPC_ValueDependentIsNotNull)) return true;
  if (const auto* c = dyn_cast<ImplicitCastExpr>(e)) {
    const CastKind k = c->getCastKind();
    if (k == CK_ArrayToPointerDecay) return private_place(c->getSubExpr());
    if (k == CK_NoOp || k == CK_BitCast || k == CK_DerivedToBase ||
        k == CK_UncheckedDerivedToBase || k == CK_NullToPointer)
      return private_pointer(ctx, c->getSubExpr());
    return false;
  }
  if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
    return private_place(u->getSubExpr());
  return false;
}

/// Whether the callee's code is one the detector does not instrument.
bool unseen(const SourceManager& sm, const FunctionDecl* f) {
  if (sm.isInSystemHeader(sm.getExpansionLoc(f->getLocation()))) return true;
  const auto* m = dyn_cast<CXXMethodDecl>(f);
  return m && (m->isImplicit() || m->isDefaulted()) && !m->isTrivial();
}

/// Whether argument `a` of a call of `f` (the parameter it binds, if any) may reach
/// shared memory.
bool shares(ASTContext& ctx, const FunctionDecl* f, unsigned i, const Expr* a) {
  const QualType t = i < f->getNumParams() ? f->getParamDecl(i)->getType() : a->getType();
  if (t->isReferenceType()) return !private_place(a);
  if (t->isPointerType() || t->isArrayType() || a->getType()->isPointerType())
    return !private_pointer(ctx, a);
  return false;
}

std::string named(const FunctionDecl* f) {
  const auto* m = dyn_cast<CXXMethodDecl>(f);
  if (m && (m->isImplicit() || m->isDefaulted()))
    return "the " + std::string(m->isImplicit() ? "implicit" : "defaulted") + " special member '" +
           kernel_name(f, true) + "', which copies members the detector does not see";
  return "'" + kernel_name(f, true) +
         "' of a system header, whose accesses the detector does not see";
}

} // namespace

std::optional<std::string> host_overload(ASTContext& ctx, const FunctionDecl* f) {
  const SourceManager& sm = ctx.getSourceManager();
  if (!f || !f->getDeclName().isIdentifier()) return std::nullopt;
  // Host functions are the file's functions without __device__ or __global__ that are
  // not constexpr (clang makes those host and device).
  auto host_only = [&](const FunctionDecl* g) {
    return !g->hasAttr<CUDADeviceAttr>() && !g->hasAttr<CUDAGlobalAttr>() && !g->isConstexpr() &&
           !g->isImplicit() && !sm.isInSystemHeader(sm.getExpansionLoc(g->getLocation())) &&
           sm.isInMainFile(sm.getExpansionLoc(g->getLocation()));
  };
  for (const NamedDecl* d : f->getDeclContext()->getRedeclContext()->lookup(f->getDeclName())) {
    const FunctionDecl* g = nullptr;
    if (const auto* t = dyn_cast<FunctionTemplateDecl>(d))
      g = t->getTemplatedDecl();
    else
      g = dyn_cast<FunctionDecl>(d);
    if (g && g->getCanonicalDecl() != f->getCanonicalDecl() && host_only(g))
      return "a call of '" + kernel_name(f, true) +
             "', which a host function of the file "
             "overloads (g++ builds both for the host and may choose the other)";
  }
  return std::nullopt;
}

std::optional<std::string> unseen_access(ASTContext& ctx, const Expr* call) {
  const SourceManager& sm = ctx.getSourceManager();
  const FunctionDecl* f = nullptr;
  std::vector<const Expr*> args;
  const Expr* object = nullptr; // the object of a method call
  bool arrow = false;
  if (const auto* cc = dyn_cast<CXXConstructExpr>(call)) {
    f = cc->getConstructor();
    args.assign(cc->arg_begin(), cc->arg_end());
  } else if (const auto* c = dyn_cast<CallExpr>(call)) {
    f = c->getDirectCallee();
    args.assign(c->arg_begin(), c->arg_end());
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(c)) {
      object = mc->getImplicitObjectArgument();
      if (const auto* me = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens()))
        arrow = me->isArrow();
    } else if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(c);
               oc && f && isa<CXXMethodDecl>(f) && !args.empty()) {
      object = args.front(); // `a = b`, `a[i]`: the object is the first operand
      args.erase(args.begin());
    }
  }
  if (!f || !unseen(sm, f)) return std::nullopt;
  if (object && !isa<CXXThisExpr>(object->IgnoreParenImpCasts()) &&
      !(arrow ? private_pointer(ctx, object) : private_place(object)))
    return "a call of " + named(f) + ", on an object other threads may share";
  if (object && isa<CXXThisExpr>(object->IgnoreParenImpCasts()))
    return "a call of " + named(f) + ", on the object of a method (other threads may share it)";
  for (unsigned i = 0; i < args.size(); ++i)
    if (shares(ctx, f, i, args[i]))
      return "a call of " + named(f) + ", with argument " + std::to_string(i + 1) +
             " by reference or pointer (memory other threads may share)";
  return std::nullopt;
}

} // namespace funmem::frontend::detail
