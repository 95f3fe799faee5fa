// Checking a CUDA file: the one front-end pipeline. The file's GPUVerify header and the
// caller's options give the launch facts; the extractor summarises every kernel; the
// race checker decides each; the dynamic detector runs the kernels left open
// (confirm.h). funmem-extract, the differential campaign, translation validation's
// callers and the tests all check files through it.
#pragma once

#include "frontend/extract.h"
#include "frontend/race.h"

#include <string>
#include <vector>

namespace funmem::frontend {

struct CheckOptions {
  /// The checker's options; the header's launch facts are added to `race.facts`, and,
  /// with `header_semantics`, its GPUVerify options to the flags.
  RaceOptions race;
  /// Launch facts as text (`blockDim.x == 256`), added after the header's.
  std::vector<std::string> assumes;
  std::vector<std::string> clang_args;
  ExtractOptions extract;
  /// GPUVerify's options of the header (`--equality-abstraction`, `--warp-sync=N`,
  /// `--only-intra-group`) apply; off for the differential campaign, whose detector
  /// runs plain CUDA.
  bool header_semantics = true;
  /// Open verdicts (`unknown`, `unsupported`) are confirmed by running the kernel,
  /// except under options that change CUDA's semantics.
  bool run = true;
};

struct FileCheck {
  /// `file:line:col: error: ...` (clang's), an `--assume` that does not parse, a file
  /// without kernels: then there are no verdicts.
  std::vector<std::string> errors;
  bool parsed = false; // clang parsed the file (it may still have no kernel)
  GpuVerifyHeader header;
  std::vector<std::string> fact_texts; // the header's and the assumptions' facts
  RaceOptions options;                 // the options the kernels were checked with
  std::vector<KernelSummary> kernels;
  std::vector<KernelVerdict> verdicts; // one per kernel
  bool all_race_free() const;
};

/// header -> options -> extract -> check -> confirm, for the file `code` named `file`.
FileCheck check_cuda_file(const std::string& code, const std::string& file,
                          const CheckOptions& options);

} // namespace funmem::frontend
