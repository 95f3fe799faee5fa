// Parsing CUDA device code with Clang (internal to frontend/): the arguments, the
// bundled headers and the AST headers that funmem-extract, the race detector's
// instrumentation and the kernel mutator share.
#pragma once

// GCC's -Wnonnull misfires inside clang's lazy base-specifier pointers.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnonnull"
#endif
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/PPCallbacks.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace funmem::frontend {

/// Parses `code` (named `file`) device-side with the bundled minimal CUDA header and the
/// `-D` / `-I` flags of its GPUVerify header (`GpuVerifyHeader::clang_args`), then
/// `clang_args`; clang's errors go to
/// `errors` as `file:line:col: error: ...`. Null, or an AST whose diagnostics have an
/// error, when it does not parse.
std::unique_ptr<clang::ASTUnit> parse_device_code(const std::string& code, const std::string& file,
                                                  const std::vector<std::string>& clang_args,
                                                  std::vector<std::string>& errors);

/// Makes the callbacks that watch a preprocessor (preprocess_device_code).
using PreprocessorWatch = std::function<std::unique_ptr<clang::PPCallbacks>(clang::Preprocessor&)>;

/// Preprocesses `code` as parse_device_code parses it (the same arguments and bundled
/// headers), with the callbacks `watch` makes: they see every macro expansion, nested
/// ones too, and every conditional directive. False when it cannot run.
bool preprocess_device_code(const std::string& code, const std::string& file,
                            const std::vector<std::string>& clang_args,
                            const PreprocessorWatch& watch);

/// The local variable a place is part of when the place is the thread's own: `v`, `v.m`
/// (a non-static member), `v[i]` of a local `v` (not a reference, not static, not
/// `__shared__`), through no-op and derived-to-base conversions; `array` is set where an
/// element of a local array is named. Null otherwise.
const clang::DeclRefExpr* local_root(const clang::Expr* e, bool& array);

/// Why the meaning of a call's `n` arguments may depend on the order of their
/// evaluation, which C++ leaves unspecified (clang evaluates them left to right, g++ on
/// x86-64 right to left): one may change a local variable (assigned, incremented, its
/// address taken or bound to a reference) that another names, or write memory (through
/// a pointer, a global or shared variable, a local array's element; in a function it
/// calls too) while another reads or writes memory. None if neither.
std::optional<std::string> unsequenced_arguments(const clang::Expr* const* args, unsigned n);

/// The kernels of the main file, in order: at file scope, in `extern "C"` blocks and in
/// namespaces, and every instantiation of a kernel template (explicit, or by a launch).
std::vector<const clang::FunctionDecl*> main_file_kernels(clang::ASTContext& ctx);

/// The functions whose address the file takes (`&f`, or `f` as a value rather than a
/// call's callee), with or without a body: what a call through a function pointer may
/// reach when the file is the whole device program (GPUVerify's assumption too).
std::vector<const clang::FunctionDecl*> address_taken_functions(clang::ASTContext& ctx);

/// The address-taken functions, and whether the file may convert a function's address to
/// another function type: a reinterpreting cast (explicit or implicit: to `void*` for
/// memcpy, to an integer, `bit_cast`) of a type holding a function pointer (through
/// pointers, arrays and members), or a union with such a member. A call through a
/// pointer may then reach any of the functions, whatever their types.
struct FunctionAddresses {
  std::vector<const clang::FunctionDecl*> functions;
  bool converted = false;
};
FunctionAddresses function_addresses(clang::ASTContext& ctx);

/// Whether a function of type `function` may be called through a pointer to `called`:
/// their types agree once what a function pointer conversion drops (`noexcept`,
/// `noreturn`, parameters' `noescape`, other function type attributes) is dropped from
/// both. (Both ways: the extractor over-approximates the functions a call reaches.)
bool reachable_through(clang::ASTContext& ctx, clang::QualType function, clang::QualType called);

/// A kernel's name with its template arguments (`scale<64>`), and with its namespaces
/// when `qualified` (as a call names it).
std::string kernel_name(const clang::FunctionDecl* f, bool qualified = false);

/// The name of member `f` inside a structure of type `whole` as paths name it (`out` of
/// `q.out`): its own, or `B::p` where another member of `whole` or of its bases has the
/// same name (a derived class's `p` hides its base's).
std::string member_name(const clang::RecordDecl* whole, const clang::FieldDecl* f);

/// CUDA's built-in variables (`threadIdx.x` and its kin are their members): values, not
/// memory.
inline constexpr const char* kBuiltinVariables[] = {"threadIdx", "blockIdx", "blockDim", "gridDim",
                                                    "warpSize"};
inline bool builtin_variable(const std::string& name) {
  for (const char* b : kBuiltinVariables)
    if (name == b) return true;
  return false;
}

/// The path under which the bundled minimal CUDA header is mapped.
inline constexpr const char* kHeaderPath = "/funmem-extract/funmem_cuda_min.h";

} // namespace funmem::frontend
