// The typing rules of scalar operators (ir/scalar_types.h) against the two other places
// that know them: the type checker reports the rule's message for a program whose
// operand types the rule refuses and accepts the others, and the interpreter's
// arithmetic produces a value of the type the rule says. Every operator, function and
// operand type is enumerated.
#include "interp/scalar.h"
#include "ir/parser.h"
#include "ir/scalar_types.h"
#include "ir/typecheck.h"

#include <catch2/catch.hpp>

using namespace funmem;

namespace {

const std::vector<ScalarType> kTypes = {ScalarType::I64, ScalarType::I32, ScalarType::F64,
                                        ScalarType::F32, ScalarType::Bool};

/// A value of type t that no operation below fails on (no division by zero, no
/// overflow).
Scalar sample(ScalarType t) {
  switch (t) {
  case ScalarType::I64:
  case ScalarType::I32:
    return Scalar::of_int(t, 3);
  case ScalarType::F64:
  case ScalarType::F32:
    return Scalar::of_float(t, 1.5);
  case ScalarType::Bool:
    return Scalar::of_int(t, 1);
  }
  return {};
}

/// The type checker's messages for `def f (a0 : T0) ... : R = let r = EXPR in (r)`.
std::vector<Diagnostic> check(const std::string& expr, const std::vector<ScalarType>& ts,
                              ScalarType result) {
  std::string text = "def f";
  for (size_t k = 0; k < ts.size(); ++k)
    text += " (a" + std::to_string(k) + " : " + scalar_type_name(ts[k]) + ")";
  text += " : (" + std::string(scalar_type_name(result)) + ")" +
          " =\n  let (r : " + scalar_type_name(result) + ") = " + expr + "\n  in (r)\n";
  ParseResult p = parse_program(text, Lang::Fun);
  if (!p.program) FAIL("parse error: " << p.error->message << "\n" << text);
  return typecheck(*p.program);
}

std::string messages(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const Diagnostic& d : ds)
    s += d.message + "\n";
  return s;
}

} // namespace

TEST_CASE("binary operators: the table, the type checker and the interpreter agree",
          "[ir][scalar_types]") {
  const std::vector<BinOp> ops = {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod,
                                  BinOp::Eq,  BinOp::Ne,  BinOp::Lt,  BinOp::Le,  BinOp::Gt,
                                  BinOp::Ge,  BinOp::And, BinOp::Or};
  int accepted = 0;
  for (BinOp op : ops)
    for (ScalarType a : kTypes)
      for (ScalarType b : kTypes) {
        OpType r = binary_type(op, a, b);
        const std::string expr = std::string("a0 ") + binop_text(op) + " a1";
        INFO(expr << " with " << scalar_type_name(a) << ", " << scalar_type_name(b));
        CHECK(r.type.has_value() == r.error.empty());
        auto ds = check(expr, {a, b}, r.type.value_or(ScalarType::I64));
        if (!r.type) {
          CHECK(messages(ds) == r.error + "\n");
          continue;
        }
        ++accepted;
        CHECK(messages(ds).empty());
        CHECK(scalar_binop(op, sample(a), sample(b), Pos{}).t == *r.type);
      }
  // Same-typed operands only: 4 numeric types x 10 operators (% on the two integer
  // types only), equality on bool too, && and || on bool.
  CHECK(accepted == 4 * 4 + 2 + 4 * 6 + 2 + 2);
}

TEST_CASE("unary operators and built-in functions: the table, the type checker and the "
          "interpreter agree",
          "[ir][scalar_types]") {
  for (UnOp op : {UnOp::Neg, UnOp::Not})
    for (ScalarType a : kTypes) {
      OpType r = unary_type(op, a);
      const std::string expr = op == UnOp::Neg ? "-a0" : "!a0";
      INFO(expr << " with " << scalar_type_name(a));
      auto ds = check(expr, {a}, r.type.value_or(ScalarType::I64));
      if (!r.type) {
        CHECK(messages(ds) == r.error + "\n");
        continue;
      }
      CHECK(messages(ds).empty());
      CHECK(scalar_unop(op, sample(a), Pos{}).t == *r.type);
    }
  for (Fn f : {Fn::Min, Fn::Max, Fn::Abs, Fn::Select, Fn::ToI64, Fn::ToI32, Fn::ToF32, Fn::ToF64}) {
    const size_t n = fn_arity(f);
    // Every assignment of the five types to the arguments.
    size_t total = 1;
    for (size_t k = 0; k < n; ++k)
      total *= kTypes.size();
    for (size_t code = 0; code < total; ++code) {
      std::vector<ScalarType> ts;
      std::vector<Scalar> vs;
      std::string expr = std::string(fn_name(f)) + "(";
      for (size_t k = 0, c = code; k < n; ++k, c /= kTypes.size()) {
        ts.push_back(kTypes[c % kTypes.size()]);
        vs.push_back(sample(ts.back()));
        expr += (k ? ", a" : "a") + std::to_string(k);
      }
      expr += ")";
      OpType r = call_type(f, ts);
      INFO(expr << " with code " << code);
      auto ds = check(expr, ts, r.type.value_or(ScalarType::I64));
      if (!r.type) {
        CHECK(messages(ds) == r.error + "\n");
        continue;
      }
      CHECK(messages(ds).empty());
      CHECK(scalar_call(f, vs, Pos{}).t == *r.type);
    }
  }
  CHECK_FALSE(call_type(Fn::Min, {ScalarType::I64}).type);
}

TEST_CASE("scalar_type_of types a checked expression by the table", "[ir][scalar_types]") {
  ParseResult p = parse_program("def f (x : i32) (y : f32) : (f32) =\n"
                                "  let (r : f32) = select(x < 2i32 && !(x == 0i32), "
                                "f32(abs(x) * 2i32) + y, -y)\n  in (r)\n",
                                Lang::Fun);
  REQUIRE(p.program);
  const auto& let = std::get<SLet>(p.program->def.body.stmts.at(0).node);
  const SExp& e = *std::get<EScalar>(let.exp.node).e;
  auto var = [](const std::string& n) { return n == "x" ? ScalarType::I32 : ScalarType::F32; };
  CHECK(scalar_type_of(e, var) == ScalarType::F32);
  // An expression the checker would refuse is a logic error, not a guess.
  auto wrong = [](const std::string&) { return ScalarType::Bool; };
  CHECK_THROWS_AS(scalar_type_of(e, wrong), std::logic_error);
}
