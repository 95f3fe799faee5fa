// The extractor's places (extractor.h): pointers and lvalues to objects and byte
// offsets, paths inside structure parameters.
#include "frontend/extract/extractor.h"

namespace funmem::frontend::detail {

Extractor::Target Extractor::shifted(const Target& t, const Poly& by) {
  if (!t) return std::nullopt;
  return Place{t->obj, t->off + by};
}

Extractor::Target Extractor::ptr(const Expr* e, const Ctx& c) {
  mark(e, "address");
  if (const auto* p = dyn_cast<ParenExpr>(e)) return ptr(p->getSubExpr(), c);
  if (const auto* ch = dyn_cast<ChooseExpr>(e)) return ptr(ch->getChosenSubExpr(), c);
  if (const auto* g = dyn_cast<GenericSelectionExpr>(e); g && !g->isResultDependent())
    return ptr(g->getResultExpr(), c);
  if (const auto* ic = dyn_cast<CastExpr>(e)) {
    switch (ic->getCastKind()) {
    case CK_ArrayToPointerDecay:
      return lvalue(ic->getSubExpr(), c);
    case CK_LValueToRValue:
      return pointer_variable(ic->getSubExpr(), c);
    case CK_NoOp:
    case CK_BitCast:
      if (ic->getSubExpr()->getType()->isPointerType() ||
          ic->getSubExpr()->getType()->isArrayType())
        return ptr(ic->getSubExpr(), c);
      break;
    default:
      break;
    }
    throw NotAffine{"a pointer made by the conversion '" + text(e) + "'", e};
  }
  if (const auto* u = dyn_cast<UnaryOperator>(e)) {
    if (u->getOpcode() == UO_AddrOf) {
      escape(u->getSubExpr());
      return lvalue(u->getSubExpr(), c);
    }
    if (u->isIncrementDecrementOp()) throw NotAffine{"a pointer walked by '" + text(e) + "'", e};
  }
  if (const auto* b = dyn_cast<BinaryOperator>(e)) {
    if (b->getOpcode() == BO_Comma) {
      rvalue(b->getLHS(), c);
      return ptr(b->getRHS(), c);
    }
    if (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub) {
      const Expr* p = b->getLHS();
      const Expr* i = b->getRHS();
      if (!p->getType()->isPointerType()) std::swap(p, i);
      Target base = ptr(p, c);
      rvalue(i, c);
      Poly off = poly_at(i) * Poly(bytes(p->getType()->getPointeeType(), e));
      return shifted(base, b->getOpcode() == BO_Add ? off : -off);
    }
  }
  if (isa<CXXThisExpr>(e)) {
    if (this_.empty()) throw NotAffine{"'this' outside an inlined method", e};
    return this_.back();
  }
  if (isa<ConditionalOperator>(e) || isa<BinaryConditionalOperator>(e))
    throw NotAffine{"a pointer chosen by '?:' ('" + text(e) + "')", e};
  if (const auto* call = dyn_cast<CallExpr>(e)) {
    if (auto t = returned_pointer(call, c)) return *t;
    throw NotAffine{"a pointer returned by the call '" + text(e) + "'", e};
  }
  throw NotAffine{"the pointer expression '" + text(e) + "'", e};
}

Extractor::Target Extractor::pointer_variable(const Expr* lv, const Ctx& c) {
  const Expr* e = lv->IgnoreParens();
  mark(e, "pointer value");
  if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
    const ValueDecl* v = d->getDecl();
    if (auto it = ptrs_.find(v); it != ptrs_.end()) {
      reuse_checks(v);
      return it->second;
    }
    if (auto it = bad_ptrs_.find(v); it != bad_ptrs_.end()) throw NotAffine{it->second, e};
    if (auto it = refs_.find(v); it != refs_.end())
      throw NotAffine{
          "a pointer loaded from memory (through the reference '" + v->getNameAsString() + "')", e};
    throw NotAffine{"the pointer '" + v->getNameAsString() + "', whose target it cannot follow", e};
  }
  if (isa<AbstractConditionalOperator>(e))
    throw NotAffine{"a pointer chosen by '?:' ('" + text(e) + "')", e};
  // A pointer in a structure parameter the kernel never changes: a pointer
  // parameter of its own.
  if (auto path = param_path(e)) {
    cover(e, "pointer value (in a structure parameter)");
    auto it = field_objects_.find(*path);
    if (it == field_objects_.end()) {
      it = field_objects_.emplace(*path, object(nullptr, *path, Space::Global)).first;
      k_.pointer_params.push_back(it->second.name);
    }
    return Place{it->second, Poly(0)};
  }
  // A pointer stored in memory or in a structure: its target is unknown.
  address(e, c);
  throw NotAffine{"a pointer loaded from memory ('" + text(e) + "')", e};
}

std::optional<std::string> Extractor::param_path(const Expr* e0) {
  auto p = param_place(e0);
  return p ? std::optional<std::string>(p->path) : std::nullopt;
}

std::optional<Extractor::ParamPlace> Extractor::param_place(const Expr* e0) {
  const Expr* e = e0->IgnoreParenImpCasts();
  auto place = [&](std::string path) {
    return ParamPlace{std::move(path), e->getType()->getAsRecordDecl()};
  };
  if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
    if (const auto* p = dyn_cast<ParmVarDecl>(d->getDecl()); p && fixed_params_.count(p))
      return place(p->getNameAsString());
    return std::nullopt;
  }
  if (isa<CXXThisExpr>(e)) return this_path_.empty() ? std::nullopt : this_path_.back();
  if (const auto* m = dyn_cast<MemberExpr>(e)) {
    if (m->isArrow() && !isa<CXXThisExpr>(m->getBase()->IgnoreParenImpCasts())) return std::nullopt;
    // A member of a union shares its bytes with the others: no object of its own.
    const auto* f = dyn_cast<FieldDecl>(m->getMemberDecl());
    if (!f || f->getParent()->isUnion()) return std::nullopt;
    auto base = param_place(m->getBase());
    if (!base) return std::nullopt;
    // The members of an anonymous structure are named as the parent's.
    if (f->isAnonymousStructOrUnion()) return base;
    const RecordDecl* whole = base->whole ? base->whole : f->getParent();
    return place(base->path + "." + member_name(whole, f));
  }
  if (const auto* a = dyn_cast<ArraySubscriptExpr>(e)) {
    const Expr* base = a->getBase()->IgnoreParenImpCasts();
    auto k = a->getIdx()->getIntegerConstantExpr(ctx_);
    // An element inside the array (`q.p[2]` of `int* p[2]` is other bytes).
    const auto* at = ctx_.getAsConstantArrayType(base->getType());
    if (!at || !k || !exact_value(*k) || *exact_value(*k) < 0 ||
        static_cast<uint64_t>(*exact_value(*k)) >= at->getSize().getZExtValue())
      return std::nullopt;
    auto b = param_place(base);
    if (!b) return std::nullopt;
    return place(b->path + "[" + std::to_string(*exact_value(*k)) + "]");
  }
  return std::nullopt;
}

Poly Extractor::poly_at(const Expr* e) {
  try {
    return poly(e);
  } catch (NotAffine& n) {
    if (!n.at) n.at = e;
    n.why = "the index '" + text(e) + "': " + n.why;
    throw;
  }
}

Extractor::Target Extractor::lvalue(const Expr* e, const Ctx& c) {
  mark(e, "place");
  if (const auto* p = dyn_cast<ParenExpr>(e)) return lvalue(p->getSubExpr(), c);
  if (const auto* ch = dyn_cast<ChooseExpr>(e)) return lvalue(ch->getChosenSubExpr(), c);
  if (const auto* g = dyn_cast<GenericSelectionExpr>(e); g && !g->isResultDependent())
    return lvalue(g->getResultExpr(), c);
  if (const auto* ic = dyn_cast<ImplicitCastExpr>(e); ic && ic->getCastKind() == CK_NoOp)
    return lvalue(ic->getSubExpr(), c);
  if (const auto* ic = dyn_cast<ImplicitCastExpr>(e);
      ic &&
      (ic->getCastKind() == CK_UncheckedDerivedToBase || ic->getCastKind() == CK_DerivedToBase))
    return shifted(lvalue(ic->getSubExpr(), c), Poly(base_offset(ic)));
  if (builtin(e)) return std::nullopt;
  if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
    // A function (bound to a reference, forwarded): code, no memory of the kernel's.
    if (isa<FunctionDecl>(d->getDecl())) {
      mark(e, "a function");
      return std::nullopt;
    }
    const auto* v = dyn_cast<VarDecl>(d->getDecl());
    if (!v) throw NotAffine{"the lvalue '" + text(e) + "'", e};
    if (auto it = refs_.find(v); it != refs_.end()) {
      mark(e, "reference");
      return it->second;
    }
    if (v->getType()->isReferenceType())
      throw NotAffine{"the reference '" + v->getNameAsString() +
                          "', whose target it cannot "
                          "follow",
                      e};
    if (auto it = objects_.find(canonical(v)); it != objects_.end())
      return Place{it->second, Poly(0)};
    if (v->hasAttr<CUDASharedAttr>())
      return Place{object(v, v->getNameAsString(), Space::Shared), Poly(0)};
    if (v->hasGlobalStorage()) {
      if (v->getType().isConstQualified() && !v->hasAttr<CUDADeviceAttr>() &&
          !v->hasAttr<CUDAConstantAttr>())
        return std::nullopt; // a constant (folded by the compiler)
      return Place{object(v, v->getNameAsString(), Space::Global), Poly(0)};
    }
    mark(e, "private (a local)");
    return std::nullopt;
  }
  if (const auto* a = dyn_cast<ArraySubscriptExpr>(e)) {
    Target base = ptr(a->getBase(), c);
    rvalue(a->getIdx(), c);
    return shifted(base, poly_at(a->getIdx()) * Poly(bytes(e->getType(), e)));
  }
  if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Deref)
    return ptr(u->getSubExpr(), c);
  if (const auto* m = dyn_cast<MemberExpr>(e)) {
    if (const auto* vd = dyn_cast<VarDecl>(m->getMemberDecl())) { // a static member
      if (!m->isArrow()) address(m->getBase(), c);
      return Place{object(vd, vd->getNameAsString(), Space::Global), Poly(0)};
    }
    const auto* fd = dyn_cast<FieldDecl>(m->getMemberDecl());
    if (!fd) throw NotAffine{"the member '" + text(e) + "'", e};
    if (fd->isBitField()) throw NotAffine{"the bit-field '" + text(e) + "'", e};
    // A reference member names its target, not bytes of the structure.
    if (fd->getType()->isReferenceType())
      throw NotAffine{"the reference member '" + text(e) + "', whose target it cannot follow", e};
    Target base = m->isArrow() ? ptr(m->getBase(), c) : lvalue(m->getBase(), c);
    const ASTRecordLayout& layout = ctx_.getASTRecordLayout(fd->getParent());
    int64_t off = static_cast<int64_t>(layout.getFieldOffset(fd->getFieldIndex()) / 8);
    return shifted(base, Poly(off));
  }
  if (const auto* t = dyn_cast<MaterializeTemporaryExpr>(e)) {
    rvalue(t->getSubExpr(), c);
    return std::nullopt;
  }
  if (isa<CompoundLiteralExpr>(e) || isa<StringLiteral>(e)) {
    rvalue(e, c);
    return std::nullopt;
  }
  if (const auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma) {
    rvalue(b->getLHS(), c);
    return lvalue(b->getRHS(), c);
  }
  if (isa<CallExpr>(e)) throw NotAffine{"a reference returned by the call '" + text(e) + "'", e};
  throw NotAffine{"the lvalue '" + text(e) + "'", e};
}

int64_t Extractor::base_offset(const CastExpr* ic) {
  const CXXRecordDecl* from = ic->getSubExpr()->getType()->getAsCXXRecordDecl();
  if (!from) throw NotAffine{"a base conversion of a non-class", ic};
  int64_t off = 0;
  for (const CXXBaseSpecifier* b : ic->path()) {
    if (b->isVirtual()) throw NotAffine{"a conversion to a virtual base", ic};
    const CXXRecordDecl* base = b->getType()->getAsCXXRecordDecl();
    off += ctx_.getASTRecordLayout(from).getBaseClassOffset(base).getQuantity();
    from = base;
  }
  return off;
}

Extractor::Target Extractor::block(const Expr* e, const Ctx& c) {
  const Expr* x = e->IgnoreParenImpCasts();
  if (const auto* cc = dyn_cast<CXXConstructExpr>(x); cc && cc->getNumArgs() == 1) {
    mark(cc, "block");
    x = cc->getArg(0)->IgnoreParenImpCasts();
  }
  mark(x, "block");
  if (const auto* d = dyn_cast<DeclRefExpr>(x)) {
    if (auto it = ptrs_.find(d->getDecl()); it != ptrs_.end()) {
      reuse_checks(d->getDecl());
      return it->second;
    }
    if (auto it = bad_ptrs_.find(d->getDecl()); it != bad_ptrs_.end())
      throw NotAffine{it->second, e};
  }
  (void)c;
  throw NotAffine{"the memory block '" + text(e) + "', whose target it cannot follow", e};
}

const Expr* Extractor::storage_root(const Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (const auto* m = dyn_cast<MemberExpr>(e))
    return m->isArrow() ? m->getBase()->IgnoreParenImpCasts() : storage_root(m->getBase());
  if (const auto* a = dyn_cast<ArraySubscriptExpr>(e);
      a && a->getBase()->IgnoreParenImpCasts()->getType()->isArrayType())
    return storage_root(a->getBase()->IgnoreParenImpCasts());
  return e;
}

bool Extractor::holds_pointer(QualType t) const {
  t = t.getCanonicalType();
  if (t->isPointerType() || t->isReferenceType() || t->isMemberPointerType()) return true;
  if (const auto* a = ctx_.getAsArrayType(t)) return holds_pointer(a->getElementType());
  if (const auto* r = t->getAsCXXRecordDecl()) {
    if (!r->hasDefinition()) return true;
    for (const CXXBaseSpecifier& b : r->bases())
      if (holds_pointer(b.getType())) return true;
    for (const FieldDecl* fd : r->fields())
      if (holds_pointer(fd->getType())) return true;
  }
  return false;
}

} // namespace funmem::frontend::detail
