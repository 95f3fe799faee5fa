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

namespace funmem {

/// A run-time error: kind is one of bounds, overflow, division, assume, elemtype,
/// size, resource (the words of `-- expect: error KIND`).
struct RunError : std::runtime_error {
  std::string kind;
  Pos pos;
  RunError(std::string k, Pos p, const std::string& msg)
      : std::runtime_error(msg), kind(std::move(k)), pos(p) {}
};

struct Scalar {
  ScalarType t = ScalarType::I64;
  int64_t i = 0; // integers and bool
  double f = 0;  // f32 (rounded) and f64
  static Scalar of_int(ScalarType t, int64_t v) { return {t, v, 0}; }
  static Scalar of_float(ScalarType t, double v) { return {t, 0, v}; }
  static Scalar zero(ScalarType t) { return {t, 0, 0}; }
  /// Equal type and value; floats compare bitwise-equal or both NaN.
  friend bool operator==(const Scalar& a, const Scalar& b);
  std::string to_string() const;
};

/// Looks up a scalar name; throws RunError when it is not bound to a scalar.
using ScalarLookup = std::function<Scalar(const std::string& name, Pos pos)>;

Scalar eval_sexp(const SExp& e, const ScalarLookup& lookup);
Scalar lit_value(const Lit& l);
/// An integer operand used as a size, index or count (must be i64 or i32).
int64_t as_int(const Scalar& s, Pos pos, const char* what);
bool as_bool(const Scalar& s, Pos pos);
/// Converts a literal of an input to the parameter's element type (exact for integers).
Scalar convert_input(const Lit& l, ScalarType t, Pos pos);

} // namespace funmem
