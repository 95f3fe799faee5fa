// Parsing CUDA device code with Clang (internal to frontend/): the arguments and the
// bundled headers that funmem-extract, the race detector's instrumentation and the
// kernel mutator share.
#pragma once

#include <clang/Frontend/ASTUnit.h>

#include <memory>
#include <string>
#include <vector>

namespace funmem::frontend {

/// Parses `code` (named `file`) device-side with the bundled minimal CUDA header;
/// clang's errors go to `errors` as `file:line:col: error: ...`. Null, or an AST whose
/// diagnostics have an error, when it does not parse.
std::unique_ptr<clang::ASTUnit> parse_device_code(const std::string& code, const std::string& file,
                                                  const std::vector<std::string>& clang_args,
                                                  std::vector<std::string>& errors);

/// The path under which the bundled minimal CUDA header is mapped.
inline constexpr const char* kHeaderPath = "/funmem-extract/funmem_cuda_min.h";

} // namespace funmem::frontend
