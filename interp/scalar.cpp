// Scalar arithmetic of the interpreters (see scalar.h).
#include "interp/scalar.h"

#include "ir/overloaded.h"

#include <boost/multiprecision/cpp_int.hpp>

#include <cmath>
#include <limits>
#include <sstream>

namespace funmem {

bool operator==(const Scalar& a, const Scalar& b) {
  if (a.t != b.t) return false;
  if (is_float(a.t)) {
    if (std::isnan(a.f) && std::isnan(b.f)) return true;
    return a.f == b.f;
  }
  return a.i == b.i;
}

std::string Scalar::to_string() const {
  switch (t) {
  case ScalarType::Bool:
    return i ? "true" : "false";
  case ScalarType::I64:
    return std::to_string(i);
  case ScalarType::I32:
    return std::to_string(i) + "i32";
  case ScalarType::F32:
  case ScalarType::F64: {
    std::ostringstream o;
    o.precision(t == ScalarType::F32 ? 9 : 17);
    o << f << (t == ScalarType::F32 ? "f32" : "f64");
    return o.str();
  }
  }
  return "?";
}

namespace {

Scalar make_int(ScalarType t, int64_t v, Pos pos, const char* op) {
  if (t == ScalarType::I32 && (v < INT32_MIN || v > INT32_MAX))
    throw RunError("overflow", pos, std::string("i32 overflow in ") + op);
  return Scalar::of_int(t, v);
}

Scalar make_float(ScalarType t, double v) {
  return Scalar::of_float(t, t == ScalarType::F32 ? static_cast<double>(static_cast<float>(v)) : v);
}

Scalar arith(BinOp op, const Scalar& a, const Scalar& b, Pos pos) {
  if (a.t != b.t)
    throw RunError("elemtype", pos,
                   std::string("operands of '") + binop_text(op) + "' have types " +
                       scalar_type_name(a.t) + " and " + scalar_type_name(b.t));
  if (is_float(a.t)) {
    double x = a.f, y = b.f;
    switch (op) {
    case BinOp::Add:
      return make_float(a.t, x + y);
    case BinOp::Sub:
      return make_float(a.t, x - y);
    case BinOp::Mul:
      return make_float(a.t, x * y);
    case BinOp::Div:
      return make_float(a.t, x / y);
    case BinOp::Mod:
      return make_float(a.t, std::fmod(x, y));
    default:
      break;
    }
  } else if (is_integer(a.t)) {
    int64_t x = a.i, y = b.i, r = 0;
    const char* name = binop_text(op);
    switch (op) {
    case BinOp::Add:
      if (__builtin_add_overflow(x, y, &r)) break;
      return make_int(a.t, r, pos, name);
    case BinOp::Sub:
      if (__builtin_sub_overflow(x, y, &r)) break;
      return make_int(a.t, r, pos, name);
    case BinOp::Mul:
      if (__builtin_mul_overflow(x, y, &r)) break;
      return make_int(a.t, r, pos, name);
    case BinOp::Div:
    case BinOp::Mod:
      if (y == 0) throw RunError("division", pos, std::string("division by zero in ") + name);
      if (x == INT64_MIN && y == -1) break;
      return make_int(a.t, op == BinOp::Div ? x / y : x % y, pos, name);
    default:
      return Scalar{};
    }
    throw RunError("overflow", pos,
                   std::string(scalar_type_name(a.t)) + " overflow in " + std::to_string(x) + " " +
                       name + " " + std::to_string(y));
  }
  throw RunError("elemtype", pos, std::string("'") + binop_text(op) + "' on bool");
}

template <class T> bool ordered(BinOp op, T x, T y) {
  switch (op) {
  case BinOp::Eq:
    return x == y;
  case BinOp::Ne:
    return x != y;
  case BinOp::Lt:
    return x < y;
  case BinOp::Le:
    return x <= y;
  case BinOp::Gt:
    return x > y;
  default:
    return x >= y;
  }
}

bool compare(BinOp op, const Scalar& a, const Scalar& b, Pos pos) {
  if (a.t != b.t)
    throw RunError("elemtype", pos,
                   std::string("comparison of ") + scalar_type_name(a.t) + " with " +
                       scalar_type_name(b.t));
  return is_float(a.t) ? ordered(op, a.f, b.f) : ordered(op, a.i, b.i);
}

Scalar cast(ScalarType to, const Scalar& v, Pos pos) {
  if (is_float(to)) return make_float(to, is_float(v.t) ? v.f : static_cast<double>(v.i));
  if (to == ScalarType::Bool) return Scalar::of_int(to, is_float(v.t) ? v.f != 0 : v.i != 0);
  if (is_float(v.t)) {
    double lim = to == ScalarType::I32 ? 2147483648.0 : 9223372036854775808.0;
    if (!(v.f > -lim - 1 && v.f < lim))
      throw RunError("overflow", pos,
                     "float " + v.to_string() + " does not fit in " + scalar_type_name(to));
    return make_int(to, static_cast<int64_t>(v.f), pos, "a cast");
  }
  return make_int(to, v.i, pos, "a cast");
}

} // namespace

Scalar lit_value(const Lit& l) {
  return is_float(l.type) ? Scalar::of_float(l.type, l.f) : Scalar::of_int(l.type, l.i);
}

int64_t as_int(const Scalar& s, Pos pos, const char* what) {
  if (!is_integer(s.t))
    throw RunError("elemtype", pos,
                   std::string(what) + " must be an integer, not " + scalar_type_name(s.t));
  return s.i;
}

bool as_bool(const Scalar& s, Pos pos) {
  if (s.t == ScalarType::Bool) return s.i != 0;
  if (is_integer(s.t)) return s.i != 0;
  throw RunError("elemtype", pos, "a condition must be bool or an integer");
}

Scalar convert_input(const Lit& l, ScalarType t, Pos pos) {
  if (is_float(t)) return make_float(t, is_float(l.type) ? l.f : static_cast<double>(l.i));
  if (is_float(l.type))
    throw RunError("elemtype", pos,
                   std::string("a float input for a parameter of type ") + scalar_type_name(t));
  if (t == ScalarType::Bool) return Scalar::of_int(t, l.i != 0);
  return make_int(t, l.i, pos, "an input");
}

Scalar scalar_binop(BinOp op, const Scalar& x, const Scalar& y, Pos pos) {
  switch (op) {
  case BinOp::Eq:
  case BinOp::Ne:
  case BinOp::Lt:
  case BinOp::Le:
  case BinOp::Gt:
  case BinOp::Ge:
    return Scalar::of_int(ScalarType::Bool, compare(op, x, y, pos));
  case BinOp::And:
    return Scalar::of_int(ScalarType::Bool, as_bool(x, pos) && as_bool(y, pos));
  case BinOp::Or:
    return Scalar::of_int(ScalarType::Bool, as_bool(x, pos) || as_bool(y, pos));
  default:
    return arith(op, x, y, pos);
  }
}

Scalar scalar_unop(UnOp op, const Scalar& a, Pos pos) {
  if (op == UnOp::Not) return Scalar::of_int(ScalarType::Bool, !as_bool(a, pos));
  if (is_float(a.t)) return make_float(a.t, -a.f);
  if (a.t == ScalarType::Bool) throw RunError("elemtype", pos, "negation of bool");
  if (a.i == INT64_MIN) throw RunError("overflow", pos, "i64 overflow in negation");
  return make_int(a.t, -a.i, pos, "negation");
}

Scalar scalar_call(Fn f, const std::vector<Scalar>& a, Pos pos) {
  switch (f) {
  case Fn::Min:
  case Fn::Max: {
    bool less = compare(BinOp::Lt, a[0], a[1], pos);
    return (f == Fn::Min) == less ? a[0] : a[1];
  }
  case Fn::Abs:
    if (is_float(a[0].t)) return make_float(a[0].t, std::fabs(a[0].f));
    if (a[0].i == INT64_MIN) throw RunError("overflow", pos, "i64 overflow in abs");
    return make_int(a[0].t, a[0].i < 0 ? -a[0].i : a[0].i, pos, "abs");
  case Fn::Select:
    return as_bool(a[0], pos) ? a[1] : a[2];
  case Fn::ToI64:
    return cast(ScalarType::I64, a[0], pos);
  case Fn::ToI32:
    return cast(ScalarType::I32, a[0], pos);
  case Fn::ToF32:
    return cast(ScalarType::F32, a[0], pos);
  case Fn::ToF64:
    return cast(ScalarType::F64, a[0], pos);
  case Fn::Size:
  case Fn::Address: // eval_sexp_with evaluates their argument itself
    break;
  }
  return Scalar{};
}

namespace {

using Big = boost::multiprecision::cpp_int;

/// `e` over the integers where it is built of + - * and negation, other nodes by
/// `leaf`. With T = int64_t, nullopt where a step leaves i64 (then exact_int evaluates
/// it again with T = Big).
template <class T> std::optional<T> exact(const SExp& e, const IntLeaf& leaf) {
  if (const auto* b = std::get_if<SBinary>(&e.node)) {
    if (b->op == BinOp::Add || b->op == BinOp::Sub || b->op == BinOp::Mul) {
      auto x = exact<T>(*b->a, leaf);
      if (!x) return x;
      auto y = exact<T>(*b->b, leaf);
      if (!y) return y;
      if constexpr (std::is_same_v<T, Big>) {
        if (b->op == BinOp::Add) return T(*x + *y);
        if (b->op == BinOp::Sub) return T(*x - *y);
        return T(*x * *y);
      } else {
        T r = 0;
        bool o = b->op == BinOp::Add   ? __builtin_add_overflow(*x, *y, &r)
                 : b->op == BinOp::Sub ? __builtin_sub_overflow(*x, *y, &r)
                                       : __builtin_mul_overflow(*x, *y, &r);
        if (o) return std::nullopt;
        return r;
      }
    }
    if (b->op == BinOp::Div || b->op == BinOp::Mod) {
      auto x = exact<T>(*b->a, leaf);
      if (!x) return x;
      auto y = exact<T>(*b->b, leaf);
      if (!y) return y;
      if (*y == 0)
        throw RunError("division", e.pos, std::string("division by zero in ") + binop_text(b->op));
      if constexpr (!std::is_same_v<T, Big>)
        if (*x == std::numeric_limits<int64_t>::min() && *y == -1) return std::nullopt;
      // Truncating, as the interpreters' i64 division (and cpp_int's) is.
      return b->op == BinOp::Div ? T(*x / *y) : T(*x % *y);
    }
  } else if (const auto* u = std::get_if<SUnary>(&e.node); u && u->op == UnOp::Neg) {
    auto x = exact<T>(*u->a, leaf);
    if (!x) return x;
    if constexpr (!std::is_same_v<T, Big>)
      if (*x == std::numeric_limits<int64_t>::min()) return std::nullopt;
    return T(-*x);
  } else if (const auto* c = std::get_if<SCall>(&e.node);
             c && (c->fn == Fn::Min || c->fn == Fn::Max || c->fn == Fn::Abs)) {
    auto x = exact<T>(*c->args.at(0), leaf);
    if (!x) return x;
    if (c->fn == Fn::Abs) {
      if constexpr (!std::is_same_v<T, Big>)
        if (*x == std::numeric_limits<int64_t>::min()) return std::nullopt;
      return *x < 0 ? T(-*x) : *x;
    }
    auto y = exact<T>(*c->args.at(1), leaf);
    if (!y) return y;
    return (c->fn == Fn::Min) == (*x < *y) ? x : y;
  }
  return T(leaf(e));
}

} // namespace

int64_t exact_int(const SExp& e, const IntLeaf& leaf, const char* what) {
  if (auto v = exact<int64_t>(e, leaf)) return *v;
  const Big v = *exact<Big>(e, leaf);
  if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max())
    throw RunError("resource", e.pos, std::string(what) + " " + v.str() + " leaves i64");
  return static_cast<int64_t>(v);
}

int64_t wrapped_int(const SExp& e, const IntLeaf& leaf) {
  if (auto v = exact<int64_t>(e, leaf)) return *v;
  const Big two64 = Big(1) << 64;
  Big r = *exact<Big>(e, leaf) % two64;
  if (r < 0) r += two64;
  return static_cast<int64_t>(static_cast<uint64_t>(r));
}

Scalar eval_sexp(const SExp& e, const ScalarLookup& lookup) {
  auto f = [&](const std::string& n, Pos p) { return lookup(n, p); };
  return eval_sexp_with(e, f);
}

} // namespace funmem
