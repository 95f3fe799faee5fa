// The race detector's host harness (race_run.cpp): per kernel, the code that fills its
// arguments from a job's values, launches it on the CPU emulation and reports.
#pragma once

#include "frontend/cuda/parse.h"
#include "frontend/dynamic/race_run.h"

#include <clang/Frontend/ASTUnit.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <string>
#include <vector>

namespace funmem::frontend::detail {

/// `file:line:col: error: cannot instrument WHAT` at `l` (its expansion's place).
std::string refusal(const clang::SourceManager& sm, clang::SourceLocation l,
                    const std::string& what);

/// A type as C++ source names it.
std::string type_text(clang::QualType t, const clang::ASTContext& ctx);

/// The harness appended to the instrumented file: definitions of the functions the file
/// declares without a body, the registration of `statics`, and per kernel of `kernels`
/// a run. `names` and `ranges` receive the places a launch may give values.
std::string harness(clang::ASTContext& ctx, const std::vector<const clang::FunctionDecl*>& kernels,
                    const std::vector<const clang::VarDecl*>& statics,
                    std::vector<std::string>& names, std::vector<ScalarRange>& ranges);

} // namespace funmem::frontend::detail
