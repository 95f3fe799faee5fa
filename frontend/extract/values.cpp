// The extractor's values (extractor.h): integer expressions as polynomials, conditions as
// formulas, the built-in indices, uniform values.
#include "frontend/extract/extractor.h"

namespace funmem::frontend::detail {

void add_guard(std::vector<Formula>& gs, const Formula& f) {
  if (f.kind == Formula::Kind::And) {
    for (const Formula& k : f.kids)
      add_guard(gs, k);
    return;
  }
  gs.push_back(f);
}

int64_t gcd64(int64_t a, int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

int64_t coefficient_gcd(const Poly& p, int64_t g) {
  for (const auto& [m, c] : p.terms())
    g = gcd64(g, c);
  return g;
}

std::optional<std::string> Extractor::builtin(const Expr* e) {
  const auto* m = dyn_cast<MemberExpr>(e->IgnoreParenImpCasts());
  if (!m) return std::nullopt;
  const auto* d = dyn_cast<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts());
  if (!d || !in_header(d->getDecl())) return std::nullopt;
  std::string base = d->getDecl()->getNameAsString();
  for (const char* b : kBuiltins)
    if (base == b) {
      mark(m, "built-in index (no memory)");
      mark(d, "built-in index (no memory)");
      return base + "_" + m->getMemberDecl()->getNameAsString();
    }
  return std::nullopt;
}

Poly Extractor::poly(const Expr* e0) {
  // An integer constant expression: its C value, as Clang folds it (conversions and
  // their wraps, character literals, enumerators of every kind, sizeof).
  if (e0->getType()->isIntegralOrEnumerationType() && !e0->isValueDependent())
    if (auto k = e0->getIntegerConstantExpr(ctx_))
      if (auto v = exact_value(*k)) return Poly(*v);
  // Casts, implicit and explicit: an integer conversion is C's (integers.cpp); a value
  // of another type converted to an integer is unknown.
  if (const auto* ce = dyn_cast<CastExpr>(e0->IgnoreParens())) {
    const Expr* sub = ce->getSubExpr();
    QualType to = ce->getType(), from = sub->getType();
    if (!to->isIntegralOrUnscopedEnumerationType()) {
      // (not an integer: below)
    } else if (!from->isIntegralOrUnscopedEnumerationType()) {
      if (ce->getCastKind() != CK_LValueToRValue && ce->getCastKind() != CK_NoOp)
        return any_of_sign(ce, "a value that is not an integer, converted to one",
                           to->isUnsignedIntegerType());
    } else if (to->isBooleanType() && !from->isBooleanType()) {
      // x != 0, exactly: 0 or 1.
      Poly x = poly(sub), v = any(ce, "exactly 0 or 1 as the operand is 0 or not (a fact)", 0, 1);
      k_.unknown_facts.push_back(
          Formula::disj({Formula::conj({eq(x, Poly(0)), eq(v, Poly(0))}),
                         Formula::conj({Formula::cmp(x, Rel::Ne, Poly(0)), eq(v, Poly(1))})}));
      return v;
    } else {
      return converted(poly(sub), from, to, ce);
    }
  }
  const Expr* e = e0->IgnoreParenImpCasts();
  // An unknown of an unsigned type (read and used as one) is not negative.
  bool nonneg = e0->getType()->isUnsignedIntegerType() && e->getType()->isUnsignedIntegerType();
  auto any_value = [&](std::string why) { return any_of_sign(e, std::move(why), nonneg); };
  if (const auto* c = dyn_cast<ExplicitCastExpr>(e)) return poly(c->getSubExpr());
  // A template's argument in an instantiation: its value.
  if (const auto* t = dyn_cast<SubstNonTypeTemplateParmExpr>(e)) return poly(t->getReplacement());
  if (auto b = builtin(e)) {
    use_name(*b);
    return Poly::var(*b);
  }
  // Floats (and anything else that is not an integer) converted to an integer.
  if (!e->getType()->isIntegralOrUnscopedEnumerationType())
    return any(e, "a value that is not an integer, converted to one");
  if (const auto* l = dyn_cast<IntegerLiteral>(e)) {
    auto v = exact_value(llvm::APSInt(l->getValue(), l->getType()->isUnsignedIntegerType()));
    return v ? Poly(*v) : any_value("a constant beyond the model's 64-bit coefficients");
  }
  // A character literal has its type's value (`'\xff'` is -1 where char is signed), not
  // its code unit's.
  if (const auto* l = dyn_cast<CharacterLiteral>(e)) {
    if (auto k = l->getIntegerConstantExpr(ctx_))
      if (auto v = exact_value(*k)) return Poly(*v);
    return any_value("a character constant Clang does not fold");
  }
  if (const auto* l = dyn_cast<CXXBoolLiteralExpr>(e)) return Poly(l->getValue() ? 1 : 0);
  if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
    const ValueDecl* v = d->getDecl();
    if (auto it = env_.find(v); it != env_.end()) {
      reuse_checks(v);
      return it->second;
    }
    if (const auto* ec = dyn_cast<EnumConstantDecl>(v)) {
      auto k = exact_value(ec->getInitVal());
      return k ? Poly(*k) : any_value("an enumerator beyond the model's 64-bit coefficients");
    }
    if (const auto* vd = dyn_cast<VarDecl>(v); vd && vd->getType().isConstQualified())
      if (const Expr* init = vd->getInit())
        if (auto c = init->getIntegerConstantExpr(ctx_))
          if (auto k = exact_value(*c)) return Poly(*k);
    // A local whose address is taken, a variable of memory: read afresh each time.
    return any_value(local(v) ? "a local whose address is taken (read afresh at each use)"
                              : "a value read from memory");
  }
  if (const auto* b = dyn_cast<BinaryOperator>(e)) return poly_binary(b, nonneg);
  if (const auto* u = dyn_cast<UnaryOperator>(e)) {
    if (u->getOpcode() == UO_Minus) {
      return in_range(-poly(u->getSubExpr()), u->getType(), u,
                      u->getType()->isSignedIntegerOrEnumerationType());
    }
    if (u->getOpcode() == UO_Plus) return poly(u->getSubExpr());
  }
  if (isa<CXXScalarValueInitExpr>(e)) return Poly(0);
  // `c ? a : b`: an unknown that is a where c holds and b elsewhere (a fact the
  // accesses' formula question uses).
  if (const auto* co = dyn_cast<ConditionalOperator>(e)) {
    Poly v = any_value("`c ? a : b`: a where c holds, b elsewhere (a fact; free where a "
                       "branch may wrap)");
    if (auto f = formula(co->getCond())) {
      // A branch whose value may wrap (a range check C defines the failure of) is its
      // C value only where the check holds: v equals it there and is free elsewhere.
      // Its check is guarded by the branch's condition, and an unconditional fact
      // equating v with the unwrapped value could make that condition look impossible
      // and the check vacuous.
      auto branch = [&](const Expr* x) -> Formula {
        const size_t before = pending_.size();
        Poly a = poly(x);
        std::vector<Formula> out;
        for (size_t i = before; i < pending_.size(); ++i)
          if (!pending_[i].undefined) out.push_back(negation(pending_[i].cond));
        out.push_back(eq(v, a));
        return out.size() == 1 ? out[0] : Formula::disj(out);
      };
      Formula a = branch(co->getTrueExpr()), b = branch(co->getFalseExpr());
      k_.unknown_facts.push_back(
          Formula::disj({Formula::conj({*f, a}), Formula::conj({negation(*f), b})}));
    }
    return v;
  }
  if (const auto* c = dyn_cast<CallExpr>(e))
    if (std::optional<Poly> v = poly_call(c, nonneg)) return *v;
  if (isa<CallExpr>(e)) return any_value("the result of a call the value model does not follow");
  if (e->isGLValue()) return any_value("a value read from memory");
  return any(e,
             std::string("an expression the value model does not follow ('") +
                 e->getStmtClassName() + "')",
             nonneg ? std::optional<int64_t>(0) : std::nullopt);
}

Poly Extractor::any_of_sign(const Stmt* at, std::string why, bool nonneg) {
  return any(at, std::move(why), nonneg ? std::optional<int64_t>(0) : std::nullopt);
}

Poly Extractor::poly_binary(const BinaryOperator* b, bool nonneg) {
  auto any_value = [&](std::string why) { return any_of_sign(b, std::move(why), nonneg); };
  // C's result: in the operation's type, or wrapped (unsigned) / undefined (signed).
  auto typed = [&](const Poly& r) {
    return in_range(r, b->getType(), b, b->getType()->isSignedIntegerOrEnumerationType());
  };
  switch (b->getOpcode()) {
  case BO_Add:
    return typed(poly(b->getLHS()) + poly(b->getRHS()));
  case BO_Sub:
    return typed(poly(b->getLHS()) - poly(b->getRHS()));
  case BO_Mul:
    return typed(poly(b->getLHS()) * poly(b->getRHS()));
  case BO_Div:
    return Poly::div(poly(b->getLHS()), poly(b->getRHS()));
  case BO_Rem:
    return Poly::mod(poly(b->getLHS()), poly(b->getRHS()));
  case BO_Shl:
  case BO_Shr: {
    auto c = poly(b->getRHS()).constant();
    if (!c || *c < 0 || *c > 30) return any_value("a shift by an amount not a constant in 0..30");
    Poly p = poly(b->getLHS());
    if (b->getOpcode() == BO_Shl) return shifted_left(p, *c, b->getType(), b);
    // `>>` of a negative value rounds down, the model's division toward zero: the
    // value must not be negative, or (where the checker could not prove that) the
    // division is taken exactly, of the value less its Euclidean remainder.
    const Poly d(int64_t{1} << *c);
    if (modular_ok(p, wrap_key(pos(b->getBeginLoc()), text(b), kShiftOfNegative)))
      return Poly::div(p - Poly::mod(Poly::mod(p, d) + d, d), d);
    RangeCheck rc;
    rc.cond = ge(p, Poly(0));
    rc.pos = pos(b->getBeginLoc());
    rc.text = text(b);
    rc.type = kShiftOfNegative;
    rc.key = wrap_key(rc.pos, rc.text, rc.type);
    pending_.push_back(std::move(rc));
    return Poly::div(p, d);
  }
  case BO_Comma:
    return poly(b->getRHS());
  case BO_And: {
    // A mask by a constant c >= 0: between 0 and c.
    for (const Expr* side : {b->getLHS(), b->getRHS()})
      if (auto c = side->getIntegerConstantExpr(ctx_); c && !c->isNegative() && exact_value(*c)) {
        int64_t m = *exact_value(*c);
        Poly v = any(b,
                     "a mask by a constant: between 0 and it (the operand modulo it + 1 "
                     "where it is 2^k - 1 and the operand is not negative)",
                     0, m);
        // A mask 2^k - 1 of a value x >= 0 is x mod 2^k.
        if (m >= 0 && m < (int64_t{1} << 30) && (m & (m + 1)) == 0) {
          Poly x = poly(side == b->getLHS() ? b->getRHS() : b->getLHS());
          k_.unknown_facts.push_back(
              Formula::disj({lt(x, Poly(0)), eq(v, Poly::mod(x, Poly(m + 1)))}));
        }
        return v;
      }
    return any_value("a bit operation ('&' of no constant mask)");
  }
  default:
    return any_value("the operator '" + b->getOpcodeStr().str() + "'");
  }
}

std::optional<Poly> Extractor::poly_call(const CallExpr* c, bool nonneg) {
  auto any_value = [&](std::string why) { return any_of_sign(c, std::move(why), nonneg); };
  if (const FunctionDecl* f = c->getDirectCallee()) {
    std::string n = f->getNameAsString();
    unsigned args = c->getNumArgs();
    auto arg = [&](unsigned k) { return poly(c->getArg(k)); };
    if (in_header(f)) {
      // CUDA's integer min/max overloads compare in their result's type (`min(int,
      // unsigned)` compares unsigned): both arguments converted to it.
      if ((n == "min" || n == "max" || n == "umin" || n == "umax" || n == "llmin" || n == "llmax" ||
           n == "ullmin" || n == "ullmax" || n == "fm_min" || n == "fm_max") &&
          args == 2) {
        const QualType t = c->getType();
        if (!t->isIntegralOrUnscopedEnumerationType())
          return any_value("a minimum or maximum of values that are not integers");
        auto in_t = [&](unsigned k) {
          return converted(arg(k), c->getArg(k)->getType(), t, c->getArg(k));
        };
        const bool least = n.find("min") != std::string::npos;
        return least ? Poly::min(in_t(0), in_t(1)) : Poly::max(in_t(0), in_t(1));
      }
      // funmem-cuda's checked arithmetic (the last arguments are check sites): the
      // value is the mathematical one whenever the run does not stop with an error.
      if (n == "fm_add" && args == 3) return arg(0) + arg(1);
      if (n == "fm_sub" && args == 3) return arg(0) - arg(1);
      if (n == "fm_mul" && args == 3) return arg(0) * arg(1);
      if (n == "fm_neg" && args == 2) return -arg(0);
      if ((n == "fm_bound" || n == "fm_i32") && args == 2) return arg(0);
      // __mul24(a, b), __umul24: the low 32 bits of the product of the operands' low 24
      // bits (signed for __mul24), C's wrap of a * b into the result's type when both
      // operands fit in 24 bits; some value otherwise.
      if ((n == "__mul24" || n == "__umul24") && args == 2) {
        const bool is_unsigned = n == "__umul24";
        Poly a = arg(0), b = arg(1),
             v = any_value("a 24-bit product: C's 32 bits of a * b where both fit in 24 bits "
                           "(a fact)");
        const Poly w = in_range(a * b, c->getType(), c, false);
        const Poly lo(is_unsigned ? 0 : -(int64_t{1} << 23)),
            hi(int64_t{1} << (is_unsigned ? 24 : 23));
        k_.unknown_facts.push_back(
            Formula::disj({lt(a, lo), ge(a, hi), lt(b, lo), ge(b, hi), eq(v, w)}));
        return v;
      }
      if (n == "fm_div" && args == 4) return Poly::div(arg(0), arg(1));
      if (n == "fm_mod" && args == 4) return Poly::mod(arg(0), arg(1));
    }
    // A device function `return e;` with integer parameters: e with the arguments.
    if (const FunctionDecl* d = f->getDefinition(); d && !in_header(d) && d->hasBody())
      if (const auto* body = dyn_cast<CompoundStmt>(d->getBody()); body && body->size() == 1)
        if (const auto* r = dyn_cast<ReturnStmt>(body->body_front()); r && r->getRetValue()) {
          bool integers = true;
          for (unsigned i = 0; i < d->getNumParams() && i < args; ++i)
            integers = integers && d->getParamDecl(i)->getType()->isIntegerType();
          if (integers) {
            std::map<const ValueDecl*, Poly> saved = env_;
            for (unsigned i = 0; i < d->getNumParams() && i < args; ++i)
              env_[d->getParamDecl(i)] = arg(i);
            Poly v = poly(r->getRetValue());
            env_ = std::move(saved);
            return v;
          }
        }
  }
  return std::nullopt;
}

std::optional<Formula> Extractor::formula(const Expr* e0) {
  const Expr* e = e0->IgnoreParenImpCasts();
  try {
    if (const auto* b = dyn_cast<BinaryOperator>(e)) {
      switch (b->getOpcode()) {
      case BO_Comma:
        return formula(b->getRHS());
      case BO_LAnd:
      case BO_LOr: {
        auto l = formula(b->getLHS()), r = formula(b->getRHS());
        if (!l || !r) return std::nullopt;
        return b->getOpcode() == BO_LAnd ? Formula::conj({*l, *r}) : Formula::disj({*l, *r});
      }
      case BO_LT:
        return compare(b->getLHS(), Rel::Lt, b->getRHS());
      case BO_LE:
        return compare(b->getLHS(), Rel::Le, b->getRHS());
      case BO_GT:
        return compare(b->getLHS(), Rel::Gt, b->getRHS());
      case BO_GE:
        return compare(b->getLHS(), Rel::Ge, b->getRHS());
      case BO_EQ:
        return compare(b->getLHS(), Rel::Eq, b->getRHS());
      case BO_NE:
        return compare(b->getLHS(), Rel::Ne, b->getRHS());
      default:
        return std::nullopt;
      }
    }
    if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_LNot) {
      auto f = formula(u->getSubExpr());
      if (!f) return std::nullopt;
      return negation(*f);
    }
    // `if (x)`: x != 0.
    if (e->getType()->isIntegralOrUnscopedEnumerationType())
      return Formula::cmp(poly(e), Rel::Ne, Poly(0));
  } catch (const NotAffine&) {
    return std::nullopt;
  }
  return std::nullopt;
}

Poly Extractor::updated(const Poly& now, const Expr* at, const Expr* rhs) {
  if (const auto* u = dyn_cast<UnaryOperator>(at)) return now + Poly(u->isIncrementOp() ? 1 : -1);
  const auto* ca = dyn_cast<CompoundAssignOperator>(at);
  if (!ca || !rhs) return any(at, "an update the value model does not follow");
  Poly r = poly(rhs);
  switch (ca->getOpcode()) {
  case BO_AddAssign:
    return now + r;
  case BO_SubAssign:
    return now - r;
  case BO_MulAssign:
    return now * r;
  case BO_DivAssign:
    return Poly::div(now, r);
  case BO_RemAssign:
    return Poly::mod(now, r);
  case BO_ShlAssign:
  case BO_ShrAssign: {
    auto k = r.constant();
    if (!k || *k < 0 || *k > 30) return any(at, "a shift by an amount not a constant in 0..30");
    return ca->getOpcode() == BO_ShlAssign
               ? shifted_left(now, *k, ca->getComputationResultType(), ca)
               : Poly::div(now, Poly(int64_t{1} << *k));
  }
  default:
    return any(at, "a bit operation");
  }
}

std::optional<Poly> Extractor::stored_value(const Expr* e, std::vector<Formula>& where) {
  if (!e->getType()->isIntegralOrUnscopedEnumerationType()) return std::nullopt;
  // A value with an unknown in it is not evaluated: its unknowns are taken back, so that
  // this second look at the expression (uniform_value has the first) names nothing. The
  // range checks of a wrap C defines go to `where` (the witness search evaluates them).
  const size_t unknowns = k_.unknowns.size(), facts = k_.unknown_facts.size();
  Poly v;
  bool exact = true;
  try {
    for (const RangeCheck& rc : checks_of([&] { v = poly(e); }))
      if (!rc.undefined) where.push_back(rc.cond); // C's value only where no wrap
  } catch (const NotAffine&) {
    exact = false;
  }
  if (k_.unknowns.size() > unknowns) {
    k_.unknowns.resize(unknowns);
    k_.values.resize(unknowns);
    k_.unknown_facts.resize(facts);
    return std::nullopt;
  }
  return exact ? std::optional<Poly>(v) : std::nullopt;
}

std::optional<std::string> Extractor::uniform_value(const Expr* e) {
  Expr::EvalResult r;
  if (!e->isValueDependent() && e->EvaluateAsRValue(r, ctx_)) {
    if (r.Val.isInt()) return "int " + llvm::toString(r.Val.getInt(), 10);
    if (r.Val.isFloat()) {
      llvm::SmallString<32> t;
      r.Val.getFloat().toString(t);
      return "float " + std::string(t.str());
    }
  }
  // A load of a fixed element of a variable of memory (`A[0]`, `s`): the same in every
  // thread unless the kernel writes the variable (checked in normalise).
  {
    const Expr* x = e->IgnoreParenImpCasts();
    std::optional<int64_t> k = 0;
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(x)) {
      auto c = a->getIdx()->getIntegerConstantExpr(ctx_);
      k = c ? exact_value(*c) : std::nullopt;
      x = a->getBase()->IgnoreParenImpCasts();
    }
    if (const auto* d = dyn_cast<DeclRefExpr>(x); d && k)
      if (const auto* v = dyn_cast<VarDecl>(d->getDecl()); v && objects_.count(canonical(v))) {
        const Obj& o = objects_.at(canonical(v));
        return std::string(o.space == Space::Shared ? "load shared " : "load ") + o.name + "[" +
               std::to_string(*k) + "]";
      }
  }
  // The address of a variable of memory (`p = A` of a `__shared__` array).
  if (e->getType()->isPointerType())
    if (const auto* d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
      if (const auto* v = dyn_cast<VarDecl>(d->getDecl());
          v && (v->hasAttr<CUDASharedAttr>() || v->hasGlobalStorage()))
        return std::string(v->hasAttr<CUDASharedAttr>() ? "address shared " : "address ") +
               v->getNameAsString();
  if (!e->getType()->isIntegralOrUnscopedEnumerationType()) return std::nullopt;
  Poly v;
  // C's value only where its range checks hold: a wrap C defines (a narrowing conversion,
  // unsigned arithmetic) may make equal polynomials different values (`n` and
  // `(unsigned char)n`). A signed overflow is assumed away, as everywhere.
  for (const RangeCheck& rc : checks_of([&] { v = poly(e); }))
    if (!rc.undefined) return std::nullopt;
  for (const std::string& n : v.free_vars())
    if (n.rfind("blockDim_", 0) != 0 && n.rfind("gridDim_", 0) != 0 &&
        std::find(k_.scalar_params.begin(), k_.scalar_params.end(), n) == k_.scalar_params.end())
      return std::nullopt;
  return "int " + v.to_string();
}

} // namespace funmem::frontend::detail
