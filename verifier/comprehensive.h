// Comprehensive parametric kernels (docs/comprehensive.md): the case discussion of
// every parametric kernel of a lowered program (tune/case_discussion.h) over the
// machine's limits T (threads per block), Z (shared memory bytes per block), R
// (registers per thread) and the program parameters B (block size) and s (thread
// granularity), and the program generated again with a host dispatcher over its
// leaves.
//
// Counters, in the order the discussion evaluates them:
//   registers <= R   ptxas's count for the variant (nvcc --resource-usage; left out
//                    without nvcc), lowered by the strategy `register-cap`
//                    (__maxnreg__ at CudaOptions::register_caps' first level);
//   shared <= Z      8 * sum over the variant's tiles of stride * (B*s - 1) + span + 1
//                    bytes, lowered by `granularity` (s = 1), then `no-cache`;
//   threads <= T     B, no strategy.
// The domain: 1 <= B <= T <= 1024, 1 <= s <= 1024, 0 <= Z <= 49152, cap <= R <= 255,
// B * R <= 65536 (a block's registers), which the dispatcher's limits satisfy for every
// block size a device accepts. A kernel nest's blocks are B0 rows of B1 threads: B0 * B1
// in place of B, and its shared counter counts two-dimensional tiles.
//
// Example: comprehensive_kernels(lowered_jacobi, {}) gives, for fm_kernel_0 with one
// tile (stride 1, span 2), the leaves [] (s, cache), [granularity] (s = 1, cache) and
// [granularity, no-cache], as the seed's figure 7.
#pragma once

#include "tune/case_discussion.h"
#include "verifier/cuda_check.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace funmem {

struct ComprehensiveOptions {
  std::string arch = "sm_80";
  bool registers = true; // measure registers with nvcc when it is present
  unsigned timeout_ms = 2000;
};

struct KernelCases {
  std::string kernel; // fm_kernel_K
  Pos pos;            // the IMP kernel
  int block_dims = 1; // 2: a nest's, blocks of B0 x B1 threads
  std::vector<Formula> domain;
  std::vector<CudaTile> tiles;
  std::vector<ResourceCounter> counters;
  std::map<std::string, int> registers; // ptxas, per variant (empty without nvcc)
  std::map<std::string, int64_t> spill_bytes;
  CaseDiscussion cases;
  std::vector<CudaLeaf> leaves; // as the dispatcher launches them, one per cases.leaves
  /// Per leaf, its system without comparisons of constants and repeated conditions
  /// (what the dispatcher tests).
  std::vector<std::vector<Formula>> systems;
  /// Per leaf, parameters and limits where its system holds with B = 256 (B0 = 8,
  /// B1 = 32) and s = 4 when it can (else any): what the emulation runs the leaf with.
  std::vector<Env> sample;
};

struct Comprehensive {
  std::vector<KernelCases> kernels;
  std::string registers_note;  // why registers were not measured ("" when they were)
  CudaCode code;               // the program with its dispatchers
  std::vector<Formula> domain; // of the one-dimensional kernels (KernelCases::domain)
};

/// The case discussions of `l`'s parametric kernels and the program with dispatchers.
/// nullopt with `error` when the program cannot be generated or measured.
std::optional<Comprehensive>
comprehensive_kernels(const Lowered& l, const ComprehensiveOptions& opt, std::string* error);

/// The trees (as the seed's figures 7 and 8) and each leaf's variant.
std::string comprehensive_text(const Comprehensive& c);
nlohmann::json comprehensive_json(const Comprehensive& c);

/// Which of kernel `kernel`'s functions a run launched, by its `--time` report: "" when
/// none (the data set does not reach the kernel), else the names, space-separated.
std::string launched_functions(const std::string& time_report, const std::string& kernel);

/// The harness flags that make the dispatcher choose leaf `leaf` of kernel `k`
/// (`--param B=.. --param s=.. --limit T=.. --limit Z=.. --limit R=..`; for a nest
/// B0 and B1, and every threshold at infinity, which gives the dispatcher the place of
/// the flattened version).
std::string leaf_args(const KernelCases& k, size_t leaf);

} // namespace funmem
