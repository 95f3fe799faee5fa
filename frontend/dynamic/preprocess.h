// The race detector's build of the instrumented file by g++ (race_run.cpp): g++'s
// arguments from clang's, and the preprocessing made the same as clang's (the lines
// clang skipped, its conditional directives, its predefined macros).
#pragma once

#include <clang/Frontend/ASTUnit.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <string>
#include <vector>

namespace funmem::frontend::detail {

/// The flags of every g++ build of an instrumented file: C++17, the dialect clang parses
/// the file in.
inline constexpr const char* kHostFlags = "-std=c++17 -fno-char8_t -O1 -w -pthread";

/// g++'s arguments for the clang arguments that change what the file means: `macros`
/// (-D, -U, -std=, -f[no-]signed-char, -f[no-]unsigned-char; they change g++'s
/// predefined macros too) and `paths` (-I, -include, -isystem, -iquote, -idirafter).
/// Warnings are left out; any other argument is an error in `errors`: the harness
/// would be another program than the file with that argument.
struct HostArgs {
  std::string macros, paths;
};
HostArgs host_args(const std::vector<std::string>& clang_args, std::vector<std::string>& errors);

/// Makes g++ build the text that clang parsed (`code`, named `file`, parsed into `ast`
/// with `clang_args`): the main file's conditional directives are blanked and the lines
/// clang skipped emptied (in `rw`; line numbers kept), and the predefined macros whose
/// values differ between clang and g++ (built with `kHostFlags` and `host_macros`)
/// that the file or its own headers use, in code or in a conditional directive, nested
/// in other macros too, are returned as clang's definitions to precede the text. What
/// cannot be made equal is an error in `errors`: a macro of a system header that reaches
/// such a macro (g++'s headers are not clang's), `__has_builtin` and its kin outside the
/// main file's conditional directives.
std::string host_preprocessing(clang::ASTUnit& ast, clang::Rewriter& rw, const std::string& code,
                               const std::string& file, const std::vector<std::string>& clang_args,
                               const std::string& host_macros, std::vector<std::string>& errors);

} // namespace funmem::frontend::detail
