#include "ir/scalar_types.h"

#include "ir/overloaded.h"

#include <stdexcept>

namespace funmem {

namespace {

OpType ok(ScalarType t) {
  return OpType{t, {}};
}
OpType fail(std::string message) {
  return OpType{std::nullopt, std::move(message)};
}

} // namespace

OpType unary_type(UnOp op, ScalarType a) {
  if (op == UnOp::Not && a != ScalarType::Bool)
    return fail(std::string("'!' needs a bool operand, not ") + scalar_type_name(a));
  if (op == UnOp::Neg && a == ScalarType::Bool)
    return fail("'-' needs a numeric operand, not bool");
  return ok(a);
}

OpType binary_type(BinOp op, ScalarType a, ScalarType b) {
  const std::string text = binop_text(op);
  if (a != b)
    return fail("operands of '" + text + "' have different types " + scalar_type_name(a) + " and " +
                scalar_type_name(b) + " (there are no implicit conversions)");
  switch (op) {
  case BinOp::Or:
  case BinOp::And:
    if (a != ScalarType::Bool)
      return fail("'" + text + "' needs bool operands, not " + scalar_type_name(a));
    return ok(ScalarType::Bool);
  case BinOp::Eq:
  case BinOp::Ne:
    return ok(ScalarType::Bool);
  case BinOp::Lt:
  case BinOp::Le:
  case BinOp::Gt:
  case BinOp::Ge:
    if (a == ScalarType::Bool) return fail("'" + text + "' needs numeric operands, not bool");
    return ok(ScalarType::Bool);
  case BinOp::Mod:
    if (!is_integer(a))
      return fail(std::string("'%' needs integer operands, not ") + scalar_type_name(a));
    return ok(a);
  case BinOp::Add:
  case BinOp::Sub:
  case BinOp::Mul:
  case BinOp::Div:
    if (a == ScalarType::Bool) return fail("'" + text + "' needs numeric operands, not bool");
    return ok(a);
  }
  return fail("unknown operator '" + text + "'");
}

size_t fn_arity(Fn f) {
  switch (f) {
  case Fn::Min:
  case Fn::Max:
    return 2;
  case Fn::Select:
    return 3;
  default:
    return 1;
  }
}

OpType call_type(Fn f, const std::vector<ScalarType>& args) {
  const std::string name = fn_name(f);
  if (args.size() != fn_arity(f))
    return fail(name + " takes " + std::to_string(fn_arity(f)) + " arguments, not " +
                std::to_string(args.size()));
  switch (f) {
  case Fn::Min:
  case Fn::Max:
    if (args[0] != args[1] || args[0] == ScalarType::Bool)
      return fail(name + " needs two numeric arguments of the same type");
    return ok(args[0]);
  case Fn::Abs:
    if (args[0] == ScalarType::Bool) return fail("abs needs a numeric argument");
    return ok(args[0]);
  case Fn::Select:
    if (args[0] != ScalarType::Bool) return fail("the condition of select must be bool");
    if (args[1] != args[2]) return fail("the branches of select have different types");
    return ok(args[1]);
  case Fn::ToI64:
    return ok(ScalarType::I64);
  case Fn::ToI32:
    return ok(ScalarType::I32);
  case Fn::ToF32:
    return ok(ScalarType::F32);
  case Fn::ToF64:
    return ok(ScalarType::F64);
  case Fn::Size:
  case Fn::Address:
    if (args[0] != ScalarType::I64) return fail(name + " needs an i64 argument");
    return ok(ScalarType::I64);
  }
  return fail("unknown function '" + name + "'");
}

ScalarType scalar_type_of(const SExp& e, const std::function<ScalarType(const std::string&)>& var) {
  auto need = [](const OpType& r) {
    if (!r.type) throw std::logic_error("scalar_type_of: an unchecked expression: " + r.error);
    return *r.type;
  };
  return std::visit(
      Overloaded{[&](const Lit& l) { return l.type; }, [&](const SVar& v) { return var(v.name); },
                 [&](const SUnary& u) { return need(unary_type(u.op, scalar_type_of(*u.a, var))); },
                 [&](const SBinary& b) {
                   return need(
                       binary_type(b.op, scalar_type_of(*b.a, var), scalar_type_of(*b.b, var)));
                 },
                 [&](const SCall& c) {
                   std::vector<ScalarType> args;
                   args.reserve(c.args.size());
                   for (const SExpP& a : c.args)
                     args.push_back(scalar_type_of(*a, var));
                   return need(call_type(c.fn, args));
                 }},
      e.node);
}

} // namespace funmem
