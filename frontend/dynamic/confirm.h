// Confirming a static verdict by running the kernel: the launches the dynamic detector
// (race_run.h) uses for a kernel, and the run that turns an open verdict into a race it
// observed.
#pragma once

#include "frontend/dynamic/race_run.h"
#include "frontend/extract.h"
#include "frontend/race.h"

#include <string>
#include <vector>

namespace funmem::frontend {

/// The launch a kernel's dynamic run uses: GPUVerify header sizes where it fixes them
/// (its grid at most `max_grid` blocks per dimension), otherwise 4 (x 2 in y when the
/// kernel uses y) threads and 2 (x 2) blocks.
Launch default_launch(const KernelSummary& k, const GpuVerifyHeader& header, int64_t max_grid = 4);
/// The launch of a static race witness (its sizes and scalar values).
Launch witness_launch(const RaceWitness& w);

/// `job`, and where its grid has more than one block the same launch with the blocks
/// run from the last to the first (`@@reverse`): CUDA does not order blocks, and a race
/// may need a later block to run first.
std::vector<RaceJob> in_both_block_orders(const RaceJob& job);
/// The runs of in_both_block_orders' jobs as one result per kernel: the races of both
/// (one seen in the reverse run alone has " (blocks in reverse order)" after its
/// object), finished where both finished, the errors of both.
std::vector<JobResult> merge_block_orders(const std::vector<std::vector<JobResult>>& runs);

/// The kernels whose static verdict in `verdicts` (one per kernel of `kernels`) is
/// `unknown` or `unsupported`: runs the dynamic detector on the file at small launches
/// that meet the facts and the kernel's preconditions (the default launch and a few
/// others, each with distinct and with equal buffer contents); a race it observes is a
/// witness confirmed by running the kernel, and the verdict becomes `race`. Returns
/// how many it confirmed (0 as well when the file cannot be instrumented or built).
int confirm_by_running(const std::string& code, const std::string& file,
                       const std::vector<KernelSummary>& kernels,
                       std::vector<KernelVerdict>& verdicts, const std::vector<Formula>& facts,
                       const std::vector<std::string>& clang_args = {});

} // namespace funmem::frontend
