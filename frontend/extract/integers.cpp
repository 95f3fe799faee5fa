// The extractor's C integer semantics (extractor.h): values are polynomials over the
// mathematical integers, which is C's value only while it stays in its type's range. Every
// operation and conversion whose result may leave the range adds a range check; the check
// waits until the value is used (an access's address, a guard, a loop's bounds, a
// precondition) and then takes the guards and loops of that use.
#include "frontend/extract/extractor.h"

namespace funmem::frontend::detail {

TypeRange range_of(const ASTContext& ctx, QualType t) {
  t = t.getCanonicalType();
  if (t->isBooleanType()) return {0, 1};
  const unsigned width = ctx.getIntWidth(t);
  const bool is_signed = t->isSignedIntegerOrEnumerationType();
  if (width >= 64) {
    if (is_signed)
      return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    return {0, std::nullopt};
  }
  if (is_signed) return {-(int64_t{1} << (width - 1)), (int64_t{1} << (width - 1)) - 1};
  return {0, (int64_t{1} << width) - 1};
}

bool Extractor::modular_ok(const Poly& p, const std::string& key) const {
  // Only a polynomial of a few terms over names (no remainder in it already): nested
  // remainders grow with every operation on them, and so does the work on them, which
  // the budget does not count.
  if (!modular_.count(key) || p.terms().size() > 8) return false;
  for (const auto& [m, c] : p.terms())
    for (const auto& [a, e] : m)
      if (a->kind != AtomKind::Var) return false;
  return true;
}

void Extractor::type_range(const Poly& p, QualType t) {
  if (!t->isIntegralOrUnscopedEnumerationType()) return;
  const TypeRange r = range_of(ctx_, t);
  if (r.lo == std::numeric_limits<int64_t>::min()) return; // beyond the coefficients
  k_.type_facts.push_back(ge(p, Poly(r.lo)));
  if (r.hi) k_.type_facts.push_back(le(p, Poly(*r.hi)));
}

bool Extractor::free_summand(const Poly& p, const std::string& v) const {
  if (v.rfind("fm_any_", 0) != 0) return false;
  const Poly rest = p.substitute({{v, Poly(0)}});
  if (!(p - rest == Poly::var(v)) && !(rest - p == Poly::var(v))) return false;
  for (const Formula& f : k_.unknown_facts)
    for (const std::string& w : f.free_vars())
      if (w == v) return false;
  return true;
}

Poly Extractor::in_range(const Poly& p, QualType t, const Expr* at, bool undefined) {
  if (!t->isIntegralOrUnscopedEnumerationType()) return p;
  const TypeRange r = range_of(ctx_, t);
  if (auto k = p.constant(); k && *k >= r.lo && (!r.hi || *k <= *r.hi)) return p;
  // A constant that C wraps (an unsigned result, a conversion): its C value, exactly.
  if (auto k = p.constant(); k && !undefined && r.hi) {
    __extension__ __int128 m = static_cast<__int128>(*r.hi) - r.lo + 1;
    __extension__ __int128 x = (static_cast<__int128>(*k) - r.lo) % m;
    if (x < 0) x += m;
    return Poly(static_cast<int64_t>(x + r.lo));
  }
  // A wrap the checker could not prove absent, taken exactly: C's value modulo the
  // type's size (Euclidean: `%` truncates, so twice for a value below lo).
  if (!undefined && r.hi && r.lo != std::numeric_limits<int64_t>::min() &&
      modular_ok(p, wrap_key(pos(at->getBeginLoc()), text(at), t.getAsString()))) {
    const Poly m(*r.hi - r.lo + 1);
    return Poly(r.lo) + Poly::mod(Poly::mod(p - Poly(r.lo), m) + m, m);
  }
  std::vector<Formula> in = {ge(p, Poly(r.lo))};
  if (r.hi) in.push_back(le(p, Poly(*r.hi)));
  const Formula inside = in.size() == 1 ? in[0] : Formula::conj(in);
  // A value with an unknown in it is an over-approximation already. With a free
  // unknown added to it (no fact on it), p takes every integer, C's wrapped value too.
  // Otherwise C's value is an unknown of the type's range, equal to p where p lies in it.
  for (const std::string& v : p.free_vars())
    if (free_summand(p, v)) return p;
  for (const std::string& v : p.free_vars())
    if (v.rfind("fm_any_", 0) == 0) {
      Poly u = any(at,
                   "C's value in '" + t.getAsString() +
                       "' of a value with an unknown in it (where it may wrap)",
                   r.lo, r.hi);
      k_.unknown_facts.push_back(Formula::disj({negation(inside), eq(u, p)}));
      return u;
    }
  RangeCheck rc;
  rc.cond = inside;
  rc.undefined = undefined;
  if (r.lo == std::numeric_limits<int64_t>::min()) {
    // A 64-bit signed type: [-2^63, 2^63 - 1] does not fit the model's coefficients (its
    // negation needs 2^63). Its overflow is undefined: assumed, and said.
    rc.cond = Formula::conj({}); // true
    rc.assumed = true;
  }
  rc.pos = pos(at->getBeginLoc());
  rc.text = text(at);
  rc.type = t.getAsString();
  rc.key = wrap_key(rc.pos, rc.text, rc.type);
  pending_.push_back(std::move(rc));
  return p;
}

Poly Extractor::shifted_left(const Poly& p, int64_t k, QualType t, const Expr* at) {
  const Poly r = p * Poly(int64_t{1} << k);
  if (!t->isSignedIntegerOrEnumerationType()) return in_range(r, t, at, false);
  // Signed: before C++20 `p` must not be negative and `p * 2^k` must fit the
  // corresponding unsigned type (else undefined: assumed, and said); that value is then
  // converted to `t`, into the sign bit too (C++20 defines every shift, modulo 2^width).
  const Poly u = ctx_.getLangOpts().CPlusPlus20
                     ? r
                     : in_range(r, ctx_.getCorrespondingUnsignedType(t), at, true);
  if (ctx_.getIntWidth(t) < 64) return in_range(u, t, at, false);
  // 64 bits: beyond the model's coefficients (see in_range); the value where it does not
  // reach the sign bit, any other of the type's range.
  const Poly v = any(at, "a 64-bit left shift that may reach the sign bit",
                     std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  k_.unknown_facts.push_back(Formula::disj(
      {negation(Formula::conj({ge(u, Poly(0)), le(u, Poly(std::numeric_limits<int64_t>::max()))})),
       eq(v, u)}));
  return v;
}

Poly Extractor::converted(const Poly& p, QualType from, QualType to, const Expr* at) {
  if (!from->isIntegralOrUnscopedEnumerationType() || !to->isIntegralOrUnscopedEnumerationType())
    return p;
  const TypeRange a = range_of(ctx_, from), b = range_of(ctx_, to);
  const bool fits = a.lo >= b.lo && (!b.hi || (a.hi && *a.hi <= *b.hi));
  // `--broken dropped-casts` (tests of the generated-kernel campaign): every conversion
  // keeps its value.
  if (fits || broken_ == "dropped-casts") return p;
  const size_t before = pending_.size();
  Poly v = in_range(p, to, at, false); // C++20 defines every conversion: modular
  if (pending_.size() > before) pending_.back().type += ", to which it is converted";
  return v;
}

Poly Extractor::stored(const Poly& p, QualType t, const Expr* at) {
  // `<<=`: the shift's result is C's already (shifted_left); it is converted.
  if (const auto* ca = dyn_cast<CompoundAssignOperator>(at); ca && ca->getOpcode() == BO_ShlAssign)
    return converted(p, ca->getComputationResultType(), t, at);
  const bool undefined =
      t->isSignedIntegerOrEnumerationType() && ctx_.getIntWidth(t) >= ctx_.getIntWidth(ctx_.IntTy);
  return in_range(p, t, at, undefined);
}

Formula Extractor::compare(const Expr* l, Rel rel, const Expr* r) {
  using Case = std::pair<std::optional<Formula>, Poly>;
  auto cases = [&](const Expr* e) -> std::vector<Case> {
    const auto* ce = dyn_cast<CastExpr>(e->IgnoreParens());
    if (ce && ce->getCastKind() == CK_IntegralCast) {
      QualType from = ce->getSubExpr()->getType(), to = ce->getType();
      if (from->isSignedIntegerOrEnumerationType() && to->isUnsignedIntegerType() &&
          ctx_.getIntWidth(to) == 32 && ctx_.getIntWidth(from) <= 32) {
        Poly x = poly(ce->getSubExpr());
        bool unknown = x.is_constant();
        for (const std::string& v : x.free_vars())
          unknown = unknown || v.rfind("fm_any_", 0) == 0;
        if (!unknown) return {{ge(x, Poly(0)), x}, {lt(x, Poly(0)), x + Poly(int64_t{1} << 32)}};
      }
    }
    return {{std::nullopt, poly(e)}};
  };
  const std::vector<Case> a = cases(l), b = cases(r);
  if (a.size() == 1 && b.size() == 1) return Formula::cmp(a[0].second, rel, b[0].second);
  std::vector<Formula> any;
  for (const auto& [ca, va] : a)
    for (const auto& [cb, vb] : b) {
      std::vector<Formula> both;
      if (ca) both.push_back(*ca);
      if (cb) both.push_back(*cb);
      both.push_back(Formula::cmp(va, rel, vb));
      any.push_back(Formula::conj(both));
    }
  return Formula::disj(any);
}

void Extractor::flush(const Ctx& c) {
  for (RangeCheck& rc : pending_) {
    rc.guards = c.guards;
    rc.loops = c.loops;
    k_.range_checks.push_back(std::move(rc));
  }
  pending_.clear();
}

} // namespace funmem::frontend::detail
