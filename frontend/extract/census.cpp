// The census (docs/extract.md): every node of a kernel, and of every function it
// reaches, that can touch memory, found by syntax alone, and the check that the
// extractor accounted for each; the address-taken functions of a file and which of them
// a call through a function pointer may reach.
#include "frontend/extract/extractor.h"

namespace funmem::frontend::detail {

namespace {

/// See address_taken_functions (cuda/parse.h).
class AddressTaken : public RecursiveASTVisitor<AddressTaken> {
public:
  std::vector<const FunctionDecl*> functions;
  bool converted = false; // see function_addresses
  // Both forms of an initialiser list: the semantic one holds the conversions (a
  // lambda's to a function pointer in `{f, [](int* p) { ... }}`).
  bool shouldVisitImplicitCode() const { return true; }
  // And the instantiations of templates, where a function's address may be taken too
  // (a lambda converted in a class or function template).
  bool shouldVisitTemplateInstantiations() const { return true; }

  // Visited before its children: the callee's reference is known when it is reached.
  bool VisitCallExpr(CallExpr* c) {
    callees_.insert(c->getCallee()->IgnoreParenImpCasts());
    return true;
  }
  // A captureless lambda converted to a function pointer: the pointer is its static
  // invoker's (`+[](int* p) { ... }`, `void (*f)(int*) = [](int* p) { ... }`).
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr* c) {
    const auto* conv = dyn_cast_or_null<CXXConversionDecl>(c->getMethodDecl());
    if (!conv || !conv->getParent()->isLambda()) return true;
    const CXXRecordDecl* lambda = conv->getParent();
    const FunctionDecl* invoker = nullptr;
    // The conversion's body returns the invoker (a generic lambda's instantiation).
    if (const FunctionDecl* def = conv->getDefinition(); def && def->getBody())
      invoker = returned_function(def->getBody());
    if (!invoker && !lambda->isGenericLambda()) invoker = lambda->getLambdaStaticInvoker();
    if (invoker) add(invoker);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr* d) {
    const auto* f = dyn_cast<FunctionDecl>(d->getDecl());
    if (!f || callees_.count(d)) return true;
    add(f);
    return true;
  }
  bool VisitCastExpr(CastExpr* c) {
    switch (c->getCastKind()) {
    case CK_BitCast:
    case CK_LValueBitCast:
    case CK_LValueToRValueBitCast:
    case CK_IntegralToPointer:
    case CK_PointerToIntegral:
    case CK_ReinterpretMemberPointer:
      if (holds_function(c->getType(), 0) || holds_function(c->getSubExpr()->getType(), 0))
        converted = true;
      break;
    default:
      break;
    }
    return true;
  }
  // Every `extern __shared__` array starts at the block's dynamic shared memory: one
  // that holds function pointers is the others' bytes seen as them.
  bool VisitVarDecl(VarDecl* v) {
    if (v->hasExternalStorage() && v->hasAttr<CUDASharedAttr>() && holds_function(v->getType(), 0))
      converted = true;
    return true;
  }
  bool VisitRecordDecl(RecordDecl* r) {
    if (r->isUnion() && r->getDefinition() == r)
      for (const FieldDecl* f : r->fields())
        converted = converted || holds_function(f->getType(), 0);
    return true;
  }

private:
  std::set<const Expr*> callees_;

  /// Whether `t` is or holds a function or a pointer to one (through pointers,
  /// references, arrays and members).
  static bool holds_function(QualType t, int depth) {
    if (t.isNull() || depth > 6) return false;
    for (;;) {
      if (t->isFunctionType()) return true;
      if (t->isPointerType() || t->isReferenceType())
        t = t->getPointeeType();
      else if (const ArrayType* a = t->getAsArrayTypeUnsafe())
        t = a->getElementType();
      else
        break;
    }
    if (const auto* r = t->getAsRecordDecl(); r && r->getDefinition()) {
      for (const FieldDecl* f : r->getDefinition()->fields())
        if (holds_function(f->getType(), depth + 1)) return true;
      if (const auto* c = dyn_cast<CXXRecordDecl>(r->getDefinition()))
        for (const CXXBaseSpecifier& b : c->bases())
          if (holds_function(b.getType(), depth + 1)) return true;
    }
    return false;
  }

  void add(const FunctionDecl* f) {
    // Without a body too (a math function, one defined elsewhere): a call of it is then
    // modelled as such calls are.
    const FunctionDecl* def = f->getDefinition() ? f->getDefinition() : f->getCanonicalDecl();
    if (std::find(functions.begin(), functions.end(), def) == functions.end())
      functions.push_back(def);
  }
  /// The function whose address a statement returns (a conversion's `return __invoke;`).
  static const FunctionDecl* returned_function(const Stmt* s) {
    if (!s) return nullptr;
    if (const auto* d = dyn_cast<DeclRefExpr>(s))
      if (const auto* f = dyn_cast<FunctionDecl>(d->getDecl())) return f;
    for (const Stmt* k : s->children())
      if (const FunctionDecl* f = returned_function(k)) return f;
    return nullptr;
  }
};

/// The census (docs/extract.md): every node of a kernel, and of every function it
/// reaches, that can touch memory, found by syntax alone: subscripts, dereferences,
/// member accesses, references to variables with static storage or of reference type,
/// `this`, calls and constructions (with the constructors' implicit initialisers),
/// default member initialisers and default arguments, temporaries with destructors,
/// inline assembly, new and delete.
class Census : public RecursiveASTVisitor<Census> {
public:
  explicit Census(ASTContext& ctx) : ctx_(ctx) {}
  // Both forms of an initialiser list: the semantic one holds the default member
  // initialisers an aggregate's omitted members get.
  bool shouldVisitImplicitCode() const { return true; }
  std::vector<const Stmt*> nodes;

  void run(const FunctionDecl* kernel) {
    todo_.push_back(kernel);
    functions_.insert(kernel);
    while (!todo_.empty()) {
      const FunctionDecl* f = todo_.back();
      todo_.pop_back();
      if (const auto* c = dyn_cast<CXXConstructorDecl>(f))
        for (const CXXCtorInitializer* i : c->inits())
          TraverseStmt(i->getInit());
      TraverseStmt(f->getBody());
    }
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr* e) { return add(e); }
  bool VisitUnaryOperator(UnaryOperator* u) { return u->getOpcode() == UO_Deref ? add(u) : true; }
  bool VisitMemberExpr(MemberExpr* m) { return add(m); }
  bool VisitDeclRefExpr(DeclRefExpr* d) {
    const auto* v = dyn_cast<VarDecl>(d->getDecl());
    if (v &&
        (v->hasGlobalStorage() || v->getType()->isReferenceType() || v->hasAttr<CUDASharedAttr>()))
      add(d);
    return true;
  }
  bool VisitCXXThisExpr(CXXThisExpr* t) { return add(t); }
  bool VisitCallExpr(CallExpr* c) {
    if (const FunctionDecl* f = c->getDirectCallee())
      reach(f);
    else
      for (const FunctionDecl* g : indirect_callees(ctx_, called_type(c), address_taken_))
        reach(g);
    return add(c);
  }
  // An annotation's arguments never run: the call is the node, nothing under it.
  bool TraverseCallExpr(CallExpr* c) {
    if (is_annotation(c->getDirectCallee())) return add(c);
    // Nor do the operands of a builtin that does not evaluate them.
    if (const FunctionDecl* f = c->getDirectCallee(); f && unevaluated_builtin(f)) return add(c);
    return RecursiveASTVisitor<Census>::TraverseCallExpr(c);
  }
  bool VisitCXXConstructExpr(CXXConstructExpr* c) {
    reach(c->getConstructor());
    return add(c);
  }
  // Code that runs without a written call: a default member initialiser or default
  // argument (an expression of the class or the function, shared by every use), an
  // array filler, a temporary's destructor (the node only: the walk refuses it).
  bool VisitCXXDefaultInitExpr(CXXDefaultInitExpr* e) { return TraverseStmt(e->getExpr()); }
  bool VisitInitListExpr(InitListExpr* e) {
    if (e->isSemanticForm() && e->hasArrayFiller()) return TraverseStmt(e->getArrayFiller());
    return true;
  }
  bool VisitBuiltinBitCastExpr(BuiltinBitCastExpr* e) { return add(e); }
  bool VisitCXXDefaultArgExpr(CXXDefaultArgExpr* e) { return TraverseStmt(e->getExpr()); }
  // A temporary's destructor is never followed (the walk refuses the temporary).
  bool VisitCXXBindTemporaryExpr(CXXBindTemporaryExpr* e) { return add(e); }
  bool VisitAsmStmt(AsmStmt* s) { return add(s); }
  bool VisitCXXNewExpr(CXXNewExpr* e) { return add(e); }
  bool VisitCXXDeleteExpr(CXXDeleteExpr* e) { return add(e); }
  // Nor those of `sizeof` and `alignof` (but a variable-length array's, which the walk
  // refuses), `noexcept(e)` and a requires-expression: integer constants whose operands
  // C++ never evaluates (`sizeof(f(p))` runs no `f`).
  bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr* e) {
    if (e->getTypeOfArgument()->isVariablyModifiedType())
      return RecursiveASTVisitor<Census>::TraverseUnaryExprOrTypeTraitExpr(e);
    return true;
  }
  bool TraverseCXXNoexceptExpr(CXXNoexceptExpr*) { return true; }
  // `__builtin_choose_expr(c, a, b)` runs the branch the constant `c` chooses only, and
  bool TraverseChooseExpr(ChooseExpr* e) { return TraverseStmt(e->getChosenSubExpr()); }
  // `_Generic(x, ...)` the association it selects only (not `x`).
  bool TraverseGenericSelectionExpr(GenericSelectionExpr* e) {
    if (e->isResultDependent()) return RecursiveASTVisitor<Census>::TraverseGenericSelectionExpr(e);
    return TraverseStmt(e->getResultExpr());
  }
  bool TraverseRequiresExpr(RequiresExpr*) { return true; }
  // A type's operand is never evaluated (`decltype(a[0] = 1) r = ...`).
  bool TraverseDecltypeTypeLoc(DecltypeTypeLoc) { return true; }
  bool TraverseTypeOfExprTypeLoc(TypeOfExprTypeLoc) { return true; }

private:
  ASTContext& ctx_; // for the functions an indirect call may reach
  std::optional<FunctionAddresses> address_taken_;
  std::set<const FunctionDecl*> functions_;
  std::vector<const FunctionDecl*> todo_;
  bool add(const Stmt* s) {
    nodes.push_back(s);
    return true;
  }
  void reach(const FunctionDecl* f) {
    // Trivial special members are modelled as whole-object copies, not followed.
    if (f && f->isTrivial()) return;
    // A lambda's static invoker runs its call operator (calls.cpp).
    if (const auto* m = dyn_cast_or_null<CXXMethodDecl>(f); m && m->isLambdaStaticInvoker())
      f = lambda_operator(m);
    const FunctionDecl* d = f ? f->getDefinition() : nullptr;
    if (d && d->hasBody() && functions_.insert(d).second) todo_.push_back(d);
  }
};

} // namespace

void Extractor::census(const FunctionDecl* f) {
  Census cs(ctx_);
  cs.run(f);
  std::set<const Stmt*> done;
  for (const Stmt* s : cs.nodes) {
    if (!done.insert(s).second) continue;
    auto it = seen_.find(s);
    std::string how = it == seen_.end() ? "" : it->second;
    k_.census.push_back({pos(s->getBeginLoc()), text(s), how});
    if (how.empty())
      k_.unsupported.push_back(
          {pos(s->getBeginLoc()),
           "internal: unaccounted memory access at " + std::to_string(pos(s->getBeginLoc()).line) +
               ":" + std::to_string(pos(s->getBeginLoc()).col) + " ('" + text(s) + "')"});
  }
}

} // namespace funmem::frontend::detail

namespace funmem::frontend {

using namespace detail;

namespace {

/// `t` without what a function pointer conversion may drop (see reachable_through).
QualType plain_function_type(ASTContext& ctx, QualType t) {
  const auto* p = t->getAs<FunctionProtoType>();
  if (!p) return t.getCanonicalType();
  FunctionProtoType::ExtProtoInfo epi = p->getExtProtoInfo();
  epi.ExceptionSpec = FunctionProtoType::ExceptionSpecInfo();
  epi.ExtInfo = FunctionType::ExtInfo();
  epi.ExtParameterInfos = nullptr;
  return ctx.getFunctionType(p->getReturnType(), p->getParamTypes(), epi).getCanonicalType();
}

} // namespace

bool reachable_through(ASTContext& ctx, QualType function, QualType called) {
  return ctx.hasSameType(plain_function_type(ctx, function), plain_function_type(ctx, called));
}

std::vector<const FunctionDecl*> address_taken_functions(ASTContext& ctx) {
  return function_addresses(ctx).functions;
}

FunctionAddresses function_addresses(ASTContext& ctx) {
  AddressTaken a;
  a.TraverseDecl(ctx.getTranslationUnitDecl());
  return {a.functions, a.converted};
}

} // namespace funmem::frontend
