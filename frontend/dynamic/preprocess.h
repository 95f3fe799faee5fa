// The race detector's build of the instrumented file by g++ (race_run.cpp): g++'s
// arguments from clang's, and the preprocessing made the same as clang's (the lines
// clang skipped, its conditional directives, its predefined macros).
#pragma once

#include "frontend/dynamic/race_run.h"

#include <clang/Frontend/ASTUnit.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <string>
#include <vector>

namespace funmem::frontend::detail {

/// The flags of every g++ build of an instrumented file: C++17, the dialect clang parses
/// the file in.
inline constexpr const char* kHostFlags = "-std=c++17 -fno-char8_t -O1 -w -pthread";

/// The runtime header (`text`) for `-include` in a g++ build with `flags`, precompiled: a
/// copy in a folder of the temporary directory named by a hash of the text, of g++'s
/// version and of `flags`, beside its `.gch` built with `g++ flags` (once per machine:
/// into a private file renamed into place, so a concurrent build sees all of it or
/// nothing). The build reads the text where the precompiled header does not apply (g++
/// checks that), or where it could not be made: only speed depends on it. "" when
/// the folder cannot be written.
std::string precompiled_runtime(const std::string& text, const std::string& flags);

/// The g++ command that builds the instrumented file `src` into `binary`: `kHostFlags`,
/// `defines` (the file's GPUVerify header's), the file's folder `own_dir` first for
/// quoted includes, the user's arguments, the empty CUDA headers of `work_dir`/include,
/// and the runtime: precompiled where there are no defines and user arguments, else
/// `work_dir`/funmem_race_rt.h.
std::string host_build_command(const Instrumented& ins, const std::string& defines,
                               const std::string& own_dir, const std::string& work_dir,
                               const std::string& src, const std::string& binary);

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
