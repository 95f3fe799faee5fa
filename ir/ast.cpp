// Small helpers over the AST of FUN / FUNMEM (names of operators, node builders).
#include "ir/ast.h"

namespace funmem {

const char* scalar_type_name(ScalarType t) {
  switch (t) {
  case ScalarType::I64:
    return "i64";
  case ScalarType::I32:
    return "i32";
  case ScalarType::F32:
    return "f32";
  case ScalarType::F64:
    return "f64";
  case ScalarType::Bool:
    return "bool";
  }
  return "?";
}

bool is_integer(ScalarType t) {
  return t == ScalarType::I64 || t == ScalarType::I32;
}
bool is_float(ScalarType t) {
  return t == ScalarType::F32 || t == ScalarType::F64;
}

const char* binop_text(BinOp op) {
  switch (op) {
  case BinOp::Or:
    return "||";
  case BinOp::And:
    return "&&";
  case BinOp::Eq:
    return "==";
  case BinOp::Ne:
    return "!=";
  case BinOp::Lt:
    return "<";
  case BinOp::Le:
    return "<=";
  case BinOp::Gt:
    return ">";
  case BinOp::Ge:
    return ">=";
  case BinOp::Add:
    return "+";
  case BinOp::Sub:
    return "-";
  case BinOp::Mul:
    return "*";
  case BinOp::Div:
    return "/";
  case BinOp::Mod:
    return "%";
  }
  return "?";
}

int binop_prec(BinOp op) {
  switch (op) {
  case BinOp::Or:
    return 1;
  case BinOp::And:
    return 2;
  case BinOp::Eq:
  case BinOp::Ne:
  case BinOp::Lt:
  case BinOp::Le:
  case BinOp::Gt:
  case BinOp::Ge:
    return 3;
  case BinOp::Add:
  case BinOp::Sub:
    return 4;
  case BinOp::Mul:
  case BinOp::Div:
  case BinOp::Mod:
    return 5;
  }
  return 0;
}

const char* fn_name(Fn f) {
  switch (f) {
  case Fn::Min:
    return "min";
  case Fn::Max:
    return "max";
  case Fn::Abs:
    return "abs";
  case Fn::Select:
    return "select";
  case Fn::ToI64:
    return "i64";
  case Fn::ToI32:
    return "i32";
  case Fn::ToF32:
    return "f32";
  case Fn::ToF64:
    return "f64";
  case Fn::Size:
    return "size";
  case Fn::Address:
    return "address";
  }
  return "?";
}

SExpP mk_lit(Lit l, Pos p) {
  return SExp{l, p};
}
SExpP mk_int(int64_t v, Pos p) {
  return SExp{Lit{ScalarType::I64, v, 0}, p};
}
SExpP mk_var(std::string n, Pos p) {
  return SExp{SVar{std::move(n)}, p};
}
SExpP mk_bin(BinOp op, SExpP a, SExpP b, Pos p) {
  return SExp{SBinary{op, std::move(a), std::move(b)}, p};
}

} // namespace funmem
