// Scalars of the interpreters and their arithmetic: exact integers (i64, i32) with
// overflow and division-by-zero errors, IEEE floats (f32 rounded after every operation),
// booleans. Shared by the FUN, FUNMEM and IMP interpreters.
// Example: eval_binop(Add, i64 max, i64 1) throws RunError{"overflow", ...}.
#pragma once

#include "ir/ast.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace funmem {

/// Address arithmetic modulo 2^64 (Machine::eval_address).
inline int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrap_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

/// A run-time error: kind is one of bounds, overflow, division, assume, elemtype,
/// size, resource (the words of `-- expect: error KIND`).
struct RunError : std::runtime_error {
  std::string kind;
  Pos pos;
  RunError(std::string k, Pos p, const std::string& msg)
      : std::runtime_error(msg), kind(std::move(k)), pos(p) {}
};

/// 16 bytes: the type and one 8-byte value (a block cell or a result element each).
struct Scalar {
  ScalarType t = ScalarType::I64;
  union {
    int64_t i = 0; // integers and bool
    double f;      // f32 (rounded) and f64
  };
  static Scalar of_int(ScalarType t, int64_t v) {
    Scalar s;
    s.t = t;
    s.i = v;
    return s;
  }
  static Scalar of_float(ScalarType t, double v) {
    Scalar s;
    s.t = t;
    s.f = v;
    return s;
  }
  /// Zero of type t (0, 0.0, false).
  static Scalar zero(ScalarType t) {
    return t == ScalarType::F32 || t == ScalarType::F64 ? of_float(t, 0.0) : of_int(t, 0);
  }
  /// Equal type and value; floats compare bitwise-equal or both NaN.
  friend bool operator==(const Scalar& a, const Scalar& b);
  std::string to_string() const;
};
static_assert(sizeof(Scalar) == 16);

/// Looks up a scalar name; throws RunError when it is not bound to a scalar.
using ScalarLookup = std::function<Scalar(const std::string& name, Pos pos)>;

Scalar lit_value(const Lit& l);
/// An integer operand used as a size, index or count (must be i64 or i32).
int64_t as_int(const Scalar& s, Pos pos, const char* what);
bool as_bool(const Scalar& s, Pos pos);
Scalar eval_sexp(const SExp& e, const ScalarLookup& lookup);

/// The operations eval_sexp is made of (exposed for the template below).
Scalar scalar_binop(BinOp op, const Scalar& a, const Scalar& b, Pos pos); // not && ||
Scalar scalar_unop(UnOp op, const Scalar& a, Pos pos);
Scalar scalar_call(Fn f, const std::vector<Scalar>& args, Pos pos);

/// The integer value of another node of a size or an address (a name, a literal, any
/// operation but + - * and negation), as eval_sexp computes it.
using IntLeaf = std::function<int64_t(const SExp&)>;
/// A size (a type's, a layout's count, an allocation's): its + - * / %, negation, min,
/// max and abs over the integers (division truncating, by zero a `division` error),
/// every other node by `leaf`; only the value must fit i64, outside it a resource error
/// at `e` ("WHAT V leaves i64"). Sizes the type checker calls equal (equal normal forms,
/// which reach inside / % min max abs) are then equal.
int64_t exact_int(const SExp& e, const IntLeaf& leaf, const char* what);
/// An address (an index into a block, a layout's offset or stride): its value as
/// exact_int computes it (over the integers), modulo 2^64. Equal polynomials give equal
/// addresses, and an address inside its block is exact however large its terms.
int64_t wrapped_int(const SExp& e, const IntLeaf& leaf);

/// eval_sexp with the lookup inlined (the interpreters' hot path).
template <class Lookup> Scalar eval_sexp_with(const SExp& e, Lookup& lookup) {
  switch (e.node.index()) {
  case 0:
    return lit_value(std::get<Lit>(e.node));
  case 1: {
    const SVar& v = std::get<SVar>(e.node);
    if constexpr (std::is_invocable_v<Lookup&, const SVar&, Pos>)
      return lookup(v, e.pos); // a lookup that uses the variable's slot hint
    else
      return lookup(v.name, e.pos);
  }
  case 2: {
    const SUnary& u = std::get<SUnary>(e.node);
    return scalar_unop(u.op, eval_sexp_with(*u.a, lookup), e.pos);
  }
  case 3: {
    const SBinary& b = std::get<SBinary>(e.node);
    if (b.op == BinOp::And || b.op == BinOp::Or) {
      bool x = as_bool(eval_sexp_with(*b.a, lookup), b.a->pos);
      if (b.op == BinOp::And && !x) return Scalar::of_int(ScalarType::Bool, 0);
      if (b.op == BinOp::Or && x) return Scalar::of_int(ScalarType::Bool, 1);
      return Scalar::of_int(ScalarType::Bool, as_bool(eval_sexp_with(*b.b, lookup), b.b->pos));
    }
    Scalar x = eval_sexp_with(*b.a, lookup);
    return scalar_binop(b.op, x, eval_sexp_with(*b.b, lookup), e.pos);
  }
  default: {
    const SCall& c = std::get<SCall>(e.node);
    if (c.fn == Fn::Size || c.fn == Fn::Address) { // IMP's sizes and addresses
      const IntLeaf leaf = [&](const SExp& x) {
        return as_int(eval_sexp_with(x, lookup), x.pos, "a size");
      };
      return Scalar::of_int(ScalarType::I64, c.fn == Fn::Size
                                                 ? exact_int(*c.args.at(0), leaf, "a size")
                                                 : wrapped_int(*c.args.at(0), leaf));
    }
    std::vector<Scalar> a;
    a.reserve(c.args.size());
    for (const SExpP& x : c.args)
      a.push_back(eval_sexp_with(*x, lookup));
    return scalar_call(c.fn, a, e.pos);
  }
  }
}
/// Converts a literal of an input to the parameter's element type (exact for integers).
Scalar convert_input(const Lit& l, ScalarType t, Pos pos);

} // namespace funmem
