// GPUVerify's test headers and launch facts (one reader for frontend/): the leading
// comment lines of a GPUVerify test give its expected verdict, its launch, its options
// and the macros it is compiled with; `--assume` gives launch facts as text.
#pragma once

#include "analysis/formula.h"
#include "ir/ast.h"

#include <optional>
#include <string>
#include <vector>

namespace funmem::frontend {

/// `blockDim.x == 256` -> a Formula over `blockDim_x` (the dots of the built-ins become
/// underscores); errors carry a column.
std::optional<Formula> parse_launch_fact(const std::string& text, Diagnostic* error);

/// GPUVerify's header lines (`//pass`, `//xfail:...`, `//--blockDim=256 --gridDim=64`):
/// the leading comment lines of a file: the expected verdict (`race-free` for pass), the
/// launch facts and options they give, and the compiler flags.
struct GpuVerifyHeader {
  std::optional<std::string> expect; // race-free | race | unknown | unsupported
  std::vector<Formula> facts;
  std::vector<std::string> fact_texts;
  bool equal_writes = false;     // `--equality-abstraction` (RaceOptions::equal_writes)
  int warp_sync = 0;             // `--warp-sync=N` (RaceOptions::warp_sync)
  bool only_intra_group = false; // `--only-intra-group` (RaceOptions::only_intra_group)
  /// The `-D` and `-I` flags of its lines, which every compilation of the file needs.
  std::vector<std::string> clang_args;
};
GpuVerifyHeader read_gpuverify_header(const std::string& code);

} // namespace funmem::frontend
