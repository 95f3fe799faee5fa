// Resource counters of generated kernels as ptxas reports them (`nvcc --resource-usage`,
// device code only: no GPU needed): registers per thread, static shared memory, stack,
// spills, barriers. The register counter of comprehensive optimisation
// (tune/case_discussion.h) is read from here; a register cap is one of nvcc's flags
// (`-maxrregcount=N`).
// Example: parse_ptxas_report("ptxas info    : Compiling entry function '_Z11fm_kernel_0l'
// for 'sm_80'\nptxas info    : Used 40 registers, used 0 barriers, 400 bytes cmem[0]")
// gives one kernel `fm_kernel_0` with 40 registers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace funmem {

struct KernelResources {
  std::string kernel;  // demangled when it is a plain C++ function name (`_Z<len><name>...`)
  std::string mangled; // as ptxas names it
  int registers = 0;
  int barriers = 0;
  int64_t shared_bytes = 0; // static shared memory (smem)
  int64_t stack_bytes = 0, spill_store_bytes = 0, spill_load_bytes = 0;
  int64_t constant_bytes = 0; // cmem[0]: the kernel's parameters
};

/// The kernels of ptxas's report, in the order it compiled them. A line it does not know
/// is skipped; a kernel without a `Used N registers` line is left out.
std::vector<KernelResources> parse_ptxas_report(const std::string& text);

/// Compiles `cu_path` for `arch` with nvcc (device code only, `extra_flags` added, e.g.
/// `-maxrregcount=32`) and returns its kernels' resources; nullopt with `error` when
/// nvcc is missing or fails.
std::optional<std::vector<KernelResources>>
ptxas_resources(const std::string& cu_path, const std::string& arch,
                const std::vector<std::string>& extra_flags, std::string* error);

} // namespace funmem
