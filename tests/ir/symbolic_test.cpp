// Property tests of the polynomial normal form (ir/symbolic.h): normalisation agrees
// with direct evaluation at random points, is idempotent, and decides equality of
// rearranged expressions.
#include "ir/convert.h"
#include "ir/parser.h"
#include "ir/symbolic.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <functional>

using funmem::AtomKind;
using funmem::AtomRef;
using funmem::Poly;

namespace {

/// A random expression tree over x, y, z with small constants, kept as a function
/// (the slow reference) together with its Poly.
struct RandExpr {
  std::function<std::optional<int64_t>(const std::map<std::string, int64_t>&)> eval;
  Poly poly;
  std::string text;
};

std::optional<int64_t> add_ck(std::optional<int64_t> a, std::optional<int64_t> b, char op) {
  if (!a || !b) return std::nullopt;
  int64_t r;
  bool ovf = op == '+'   ? __builtin_add_overflow(*a, *b, &r)
             : op == '-' ? __builtin_sub_overflow(*a, *b, &r)
                         : __builtin_mul_overflow(*a, *b, &r);
  if (ovf) return std::nullopt;
  return r;
}

RandExpr gen_expr(int depth) {
  int kind = *rc::gen::inRange(0, depth <= 0 ? 2 : 9);
  if (kind == 0) {
    int64_t k = *rc::gen::inRange<int64_t>(-5, 6);
    return {[k](const auto&) { return std::optional<int64_t>(k); }, Poly(k), std::to_string(k)};
  }
  if (kind == 1) {
    std::string v = *rc::gen::element<std::string>("x", "y", "z");
    return {[v](const auto& env) { return std::optional<int64_t>(env.at(v)); }, Poly::var(v), v};
  }
  RandExpr a = gen_expr(depth - 1), b = gen_expr(depth - 1);
  switch (kind) {
  case 2:
  case 3:
    return {[a, b](const auto& env) { return add_ck(a.eval(env), b.eval(env), '+'); },
            a.poly + b.poly, "(" + a.text + "+" + b.text + ")"};
  case 4:
    return {[a, b](const auto& env) { return add_ck(a.eval(env), b.eval(env), '-'); },
            a.poly - b.poly, "(" + a.text + "-" + b.text + ")"};
  case 5:
  case 6:
    return {[a, b](const auto& env) { return add_ck(a.eval(env), b.eval(env), '*'); },
            a.poly * b.poly, "(" + a.text + "*" + b.text + ")"};
  case 7:
    return {[a, b](const auto& env) -> std::optional<int64_t> {
              auto x = a.eval(env), y = b.eval(env);
              if (!x || !y || *y == 0) return std::nullopt;
              return *x / *y;
            },
            Poly::div(a.poly, b.poly), "(" + a.text + "/" + b.text + ")"};
  default:
    return {[a, b](const auto& env) -> std::optional<int64_t> {
              auto x = a.eval(env), y = b.eval(env);
              if (!x || !y) return std::nullopt;
              return std::min(*x, *y);
            },
            Poly::min(a.poly, b.poly), "min(" + a.text + "," + b.text + ")"};
  }
}

} // namespace

TEST_CASE("poly: basic identities", "[ir][symbolic]") {
  Poly n = Poly::var("n"), m = Poly::var("m");
  CHECK((n + 1) * (n + 1) == n * n + 2 * n + 1);
  CHECK(n * m == m * n);
  CHECK(n - n == Poly(0));
  CHECK(Poly::min(n, m) == Poly::min(m, n));
  CHECK(Poly::div(Poly(7), Poly(-2)) == Poly(-3));
  CHECK(Poly::mod(Poly(-7), Poly(2)) == Poly(-1));
  CHECK(((n + 1) * (n + 1)).to_string() == "n*n + 2*n + 1");
  CHECK(!(n == m));
  CHECK_THROWS_AS(Poly(INT64_MAX) + Poly(1), funmem::SymbolicOverflow);
}

TEST_CASE("poly: evaluation reports overflow and division by zero", "[ir][symbolic]") {
  std::string err;
  Poly n = Poly::var("n");
  CHECK(!(n * n).eval({{"n", int64_t(1) << 40}}, &err));
  CHECK(err == "integer overflow");
  CHECK(!Poly::div(Poly(1), n).eval({{"n", 0}}, &err));
  CHECK(err == "division by zero");
  CHECK(!n.eval({}, &err));
  CHECK(err == "unbound name 'n'");
  CHECK(*(n * 3 - 1).eval({{"n", 5}}) == 14);
}

TEST_CASE("poly: normal form agrees with evaluation at random points", "[ir][symbolic][property]") {
  rc::prop("eval(normalise(e)) == eval(e)", [] {
    RandExpr e = gen_expr(4);
    std::map<std::string, int64_t> env = {{"x", *rc::gen::inRange<int64_t>(-20, 21)},
                                          {"y", *rc::gen::inRange<int64_t>(-20, 21)},
                                          {"z", *rc::gen::inRange<int64_t>(-20, 21)}};
    RC_TAG(e.text);
    auto want = e.eval(env);
    RC_PRE(want.has_value()); // skip division by zero / overflow in the reference
    auto got = e.poly.eval(env);
    RC_ASSERT(got.has_value());
    RC_ASSERT(*got == *want);
  });
}

TEST_CASE("poly: substitution is evaluation-compatible and idempotent",
          "[ir][symbolic][property]") {
  rc::prop("subst(e, x := f) evaluates as e with x = f", [] {
    RandExpr e = gen_expr(3), f = gen_expr(2);
    std::map<std::string, int64_t> env = {{"x", *rc::gen::inRange<int64_t>(-9, 10)},
                                          {"y", *rc::gen::inRange<int64_t>(-9, 10)},
                                          {"z", *rc::gen::inRange<int64_t>(-9, 10)}};
    auto fx = f.eval(env);
    RC_PRE(fx.has_value());
    auto env2 = env;
    env2["x"] = *fx;
    auto want = e.eval(env2);
    RC_PRE(want.has_value());
    Poly s = e.poly.substitute({{"x", f.poly}});
    auto got = s.eval(env);
    RC_ASSERT(got.has_value());
    RC_ASSERT(*got == *want);
    // Normalising a normal form changes nothing.
    RC_ASSERT(s.substitute({}) == s);
    RC_ASSERT(s + 0 == s);
    RC_ASSERT(s * 1 == s);
  });
}

TEST_CASE("poly: replacing an atom by its value keeps the value", "[ir][symbolic][property]") {
  rc::prop("e with min(f, g) := f evaluates as e where f <= g", [] {
    RandExpr f = gen_expr(2), g = gen_expr(2), h = gen_expr(2);
    const Poly atom =
        *rc::gen::element(0, 1) ? Poly::min(f.poly, g.poly) : Poly::max(f.poly, g.poly);
    // One atom alone (RC_PRE's captured && does not short-circuit: decided first).
    const bool one_atom = atom.terms().size() == 1 && atom.terms()[0].second == 1 &&
                          atom.terms()[0].first.size() == 1 && atom.terms()[0].first[0].second == 1;
    RC_PRE(one_atom);
    const AtomRef& a = atom.terms()[0].first[0].first;
    RC_PRE(a->kind == AtomKind::Min || a->kind == AtomKind::Max);
    std::map<std::string, int64_t> env = {{"x", *rc::gen::inRange<int64_t>(-9, 10)},
                                          {"y", *rc::gen::inRange<int64_t>(-9, 10)},
                                          {"z", *rc::gen::inRange<int64_t>(-9, 10)}};
    // e = h * atom + atom nested in an abs: every occurrence is replaced.
    const Poly e = h.poly * atom + Poly::abs(atom - h.poly);
    auto av = atom.eval(env), want = e.eval(env);
    RC_PRE(av.has_value() && want.has_value());
    auto fv = a->args[0].eval(env), gv = a->args[1].eval(env);
    RC_PRE(fv && gv);
    const Poly& chosen = *fv == *av ? a->args[0] : a->args[1];
    auto got = e.replace_atom(a, chosen).eval(env);
    RC_ASSERT(got.has_value());
    RC_ASSERT(*got == *want);
  });
}

TEST_CASE("poly: folding quotient and remainder keeps the value", "[ir][symbolic][property]") {
  // (a / b) * b * r + (a % b) * r + rest == a * r + rest wherever b != 0.
  CHECK((Poly::div(Poly::var("f"), Poly::var("m")) * Poly::var("m") +
         Poly::mod(Poly::var("f"), Poly::var("m")))
            .fold_divmod() == Poly::var("f"));
  rc::prop("eval(fold(p)) == eval(p)", [] {
    RandExpr a = gen_expr(2), b = gen_expr(1), r = gen_expr(1), rest = gen_expr(2);
    bool whole = *rc::gen::arbitrary<bool>(); // else only the remainder's half is there
    Poly q = Poly::div(a.poly, b.poly), m = Poly::mod(a.poly, b.poly);
    Poly p = (whole ? q * b.poly * r.poly : Poly(0)) + m * r.poly + rest.poly;
    std::map<std::string, int64_t> env = {{"x", *rc::gen::inRange<int64_t>(-20, 21)},
                                          {"y", *rc::gen::inRange<int64_t>(-20, 21)},
                                          {"z", *rc::gen::inRange<int64_t>(-20, 21)}};
    RC_TAG(p.to_string());
    auto want = p.eval(env);
    RC_PRE(want.has_value());
    auto got = p.fold_divmod().eval(env);
    RC_ASSERT(got.has_value());
    RC_ASSERT(*got == *want);
    // By a name (as the flattened kernels divide by theirs), the fold is complete.
    Poly y = Poly::var("y"), qy = Poly::div(a.poly, y), my = Poly::mod(a.poly, y);
    if (!(r.poly == Poly(0)))
      RC_ASSERT((qy * y * r.poly + my * r.poly).fold_divmod() == a.poly * r.poly);
  });
}

namespace {

/// A random normal form over names that are and are not names of the syntax, with
/// every kind of atom and coefficients up to the int64 extremes.
Poly gen_poly(int depth) {
  int kind = *rc::gen::inRange(0, depth <= 0 ? 2 : 12);
  if (kind == 0)
    return Poly(*rc::gen::element<int64_t>(0, 1, -1, 2, -3, 17, INT64_MAX, INT64_MIN, INT64_MIN + 1,
                                           -9000000000000));
  if (kind == 1)
    return Poly::var(*rc::gen::element<std::string>("x", "y", "n'", "_t1", "min", "in", "a b"));
  Poly a = gen_poly(depth - 1), b = gen_poly(depth - 1);
  try {
    switch (kind) {
    case 2:
      return a + b;
    case 3:
      return a - b;
    case 4:
      return a * b;
    case 5:
      return Poly::div(a, b);
    case 6:
      return Poly::mod(a, b);
    case 7:
      return Poly::min(a, b);
    case 8:
      return Poly::max(a, b);
    case 9:
      return Poly::abs(a);
    case 10:
      return -a;
    default:
      return Poly(*rc::gen::element<int64_t>(-1, -2, 3)) * a;
    }
  } catch (const funmem::SymbolicOverflow&) {
    return a;
  }
}

} // namespace

TEST_CASE("poly: to_sexp builds the tree the parser reads from to_string",
          "[ir][symbolic][property]") {
  rc::prop("to_sexp(p) == parse_sexp(p.to_string())", [] {
    Poly p = gen_poly(*rc::gen::inRange(0, 4));
    std::vector<Poly> cases{p};
    try {
      cases.push_back(-p); // a leading '-' in front of the first term
    } catch (const funmem::SymbolicOverflow&) {
    }
    for (const Poly& q : cases) {
      auto direct = funmem::to_sexp(q);
      auto parsed = funmem::parse_sexp(q.to_string());
      RC_ASSERT(direct.has_value() == parsed.has_value());
      if (direct) {
        RC_ASSERT(*direct == *parsed);
        RC_ASSERT(funmem::to_poly(**direct) == q);
      }
    }
  });
  // The two cases where the printed text does not parse.
  CHECK_FALSE(funmem::to_sexp(Poly::var("in")));
  CHECK_FALSE(funmem::to_sexp(Poly::var("x") + Poly(INT64_MIN)));
  CHECK(funmem::to_sexp(Poly(INT64_MIN)));
}
