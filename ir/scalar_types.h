// The typing rules of scalar operators and built-in functions (docs/syntax.md,
// "Scalars"): one table that the type checker reports errors from, and that to_imp and
// the CUDA lowering ask for the type of an expression the checker accepted. Operands of
// a binary operator have one type (there are no implicit conversions); comparisons give
// bool; arithmetic keeps its operands' type; the conversions give their target type.
#pragma once

#include "ir/ast.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace funmem {

/// A rule's answer: the result type, or (when the operands do not fit) the message the
/// type checker reports.
struct OpType {
  std::optional<ScalarType> type;
  std::string error;
};

OpType unary_type(UnOp op, ScalarType a);
OpType binary_type(BinOp op, ScalarType a, ScalarType b);
/// How many arguments a built-in function takes.
size_t fn_arity(Fn f);
OpType call_type(Fn f, const std::vector<ScalarType>& args);

/// The type of `e`, which the type checker accepted; `var` gives the type of a name.
/// Throws std::logic_error when a rule refuses (an expression that was not checked).
ScalarType scalar_type_of(const SExp& e, const std::function<ScalarType(const std::string&)>& var);

} // namespace funmem
