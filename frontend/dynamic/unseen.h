// Calls the race detector cannot instrument inside (race_run.cpp): a system header's
// functions, which g++ compiles as they are, and the special members the compiler
// writes. Their accesses are unseen; a call is refused where they may reach memory
// other threads share.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include <optional>
#include <string>

namespace funmem::frontend::detail {

/// Why `call` (a CallExpr of any kind or a CXXConstructExpr) cannot be instrumented: its
/// callee's code is not the file's (a system header's function, an implicit or defaulted
/// special member that is not trivial) and an argument it takes by reference or pointer,
/// or its object, may be memory other threads share (anything but a local variable, a
/// temporary or a literal, and their members and elements). None if it can.
std::optional<std::string> unseen_access(clang::ASTContext& ctx, const clang::Expr* call);

/// Why a call of `f` from device code may call another function in the detector's
/// build: a host function of the file with its name in its scope (clang leaves host
/// functions out of device code's overload resolution; g++ builds every function for
/// the host and chooses among all). None if no such overload exists.
std::optional<std::string> host_overload(clang::ASTContext& ctx, const clang::FunctionDecl* f);

} // namespace funmem::frontend::detail
