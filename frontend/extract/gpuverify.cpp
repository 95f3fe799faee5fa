// GPUVerify's specifications in the extractor (extractor.h): preconditions, loop
// invariants and the annotation calls, checked or trusted as docs/extract.md says.
#include "frontend/extract/extractor.h"

namespace funmem::frontend::detail {

bool is_annotation(const FunctionDecl* f) {
  if (!f || f->doesThisDeclarationHaveABody()) return false;
  for (const auto* a : f->specific_attrs<AnnotateAttr>())
    if (a->getAnnotation() == "funmem-spec") return true;
  return false;
}

void Extractor::precondition(const CallExpr* call, const Ctx& c) {
  if (!inlined_.empty() || c.depth != 0 || !c.guards.empty() || !c.loops.empty() || c.divergent ||
      c.returned || !k_.accesses.empty() || k_.barriers > 0)
    return;
  std::vector<RangeCheck> checks;
  std::optional<Formula> f;
  checks = checks_of([&] { f = formula(call->getArg(0)); });
  if (!f) return;
  // A precondition assumed as a mathematical formula must mean what C means: its own
  // checks are proved without the preconditions (`sz - blockDim.x >= 0` of an unsigned
  // `sz` is C's tautology, not `sz >= blockDim.x`).
  for (RangeCheck& rc : checks) {
    rc.before_preconditions = true;
    k_.range_checks.push_back(std::move(rc));
  }
  std::set<std::string> params(k_.scalar_params.begin(), k_.scalar_params.end());
  for (const std::string& v : f->free_vars())
    if (!params.count(v) && v.rfind("blockDim_", 0) != 0 && v.rfind("gridDim_", 0) != 0) return;
  k_.preconditions.push_back(*f);
  k_.precondition_texts.push_back(text(call->getArg(0)));
}

void Extractor::annotation_calls(const Expr* e, std::vector<const CallExpr*>& out) {
  e = e->IgnoreParenImpCasts();
  if (const auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma) {
    annotation_calls(b->getLHS(), out);
    annotation_calls(b->getRHS(), out);
  } else if (const auto* call = dyn_cast<CallExpr>(e)) {
    out.push_back(call);
  }
}

void Extractor::loop_invariants(const std::vector<const CallExpr*>& calls, const Stmt* body,
                                const VarDecl* var, const LoopCtx& l,
                                const std::optional<Formula>& head, const Ctx& c) {
  std::set<const ValueDecl*> changed;
  assigned_in(body, changed);
  changed.erase(var);
  for (const CallExpr* call : calls) {
    std::string n = call->getDirectCallee()->getNameAsString();
    if ((n != "__invariant" && n != "__global_invariant") || call->getNumArgs() != 1) continue;
    const Expr* e = call->getArg(0);
    std::set<const FunctionDecl*> seen;
    bool changes = reaches(e, seen, [&](const Stmt* x) {
      const auto* d = dyn_cast<DeclRefExpr>(x);
      return d && (changed.count(d->getDecl()) || escaped_.count(d->getDecl()));
    });
    std::optional<Formula> cond;
    if (head && !changes && !uses_predicates(e)) cond = formula(e);
    flush(c);
    Assertion a{pos(call->getBeginLoc()), "invariant", text(e), cond, c.guards, c.loops};
    if (head) {
      LoopCtx at_head = l;
      at_head.facts = {*head};
      a.loops.push_back(at_head);
    }
    k_.assertions.push_back(a);
  }
}

bool Extractor::uses_predicates(const Expr* e) {
  std::set<const FunctionDecl*> seen;
  return reaches(e, seen, [](const Stmt* x) {
    const auto* k = dyn_cast<CallExpr>(x);
    return k && is_annotation(k->getDirectCallee());
  });
}

bool Extractor::only_annotations(const Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (const auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma)
    return only_annotations(b->getLHS()) && only_annotations(b->getRHS());
  const auto* call = dyn_cast<CallExpr>(e);
  return call && is_annotation(call->getDirectCallee());
}

} // namespace funmem::frontend::detail
