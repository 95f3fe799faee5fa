// IMP to CUDA C++ (issue 8; docs/cuda.md). One `__global__` function per outermost IMP
// `kernel` (one thread per iteration, grid-stride when the grid is smaller than the
// iteration count); inner kernels and `for` loops become sequential loops in the
// thread; the host runs the rest and launches through FM_LAUNCH, so the same file
// compiles with nvcc and, against the CPU emulation of funmem_cuda_rt.h, with g++.
// Memory blocks are arrays of 8-byte cells (`fm_mem`), allocated with cudaMalloc.
// With checks on, every integer operation, division, cast, memory access and loop
// bound is checked as the IMP interpreter checks it, and the first failure is reported
// as `FILE:LINE:COL: error: KIND: ...`.
//
// Example: imp_to_cuda(p, {ScalarType::I64}, {}) on `kernel i < n do m[i] <- i done`
// gives a kernel `fm_kernel_0(int64_t fm_n, fm_mem p_m)` and one FM_LAUNCH in main.
#pragma once

#include "ir/imp.h"

#include <optional>
#include <string>
#include <vector>

namespace funmem {

struct CudaOptions {
  int block_size = 256;            // threads per block (FM_BLOCK, overridable with -D)
  bool checks = true;              // --checks=on|off
  std::string source_file = "fun"; // named in run-time error messages
};

struct CudaKernelInfo {
  std::string name; // fm_kernel_K
  Pos pos;          // the IMP kernel it came from
  std::vector<std::string> params;
};

struct CudaCode {
  std::string text;
  std::vector<CudaKernelInfo> kernels;
  int checked_sites = 0;
};

/// Generates the .cu file. `result_types` gives, per result of `p`, the type the
/// harness prints it as (a scalar's type, or a memory block's element type). Returns
/// nullopt with `error` set when the program cannot be lowered (an allocation inside a
/// kernel, a memory block assigned inside a kernel, a name without a declaration).
std::optional<CudaCode> imp_to_cuda(const imp::Program& p,
                                    const std::vector<ScalarType>& result_types,
                                    const CudaOptions& opt, std::string* error = nullptr);

/// The text of funmem_cuda_rt.h (written next to generated files).
const char* cuda_runtime_header();

/// C++ spelling of a scalar type (int64_t, int32_t, double, float, bool).
const char* c_type(ScalarType t);

} // namespace funmem
