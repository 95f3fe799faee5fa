// Translation validation of funmem-cuda's generated kernels (docs/extract.md).
// The generated .cu file is parsed again with Clang (its device part,
// with frontend/model/funmem_rt_model.h in place of the runtime header) and every
// `__global__` function -- every version of a multi-versioned nest -- must
//
//  1. be proved race-free by the extractor's prover, under the launch facts the host
//     code establishes (`fm_n` and `fm_m` are the kernel's and the inner bound, the
//     intra version runs blocks of `fm_m` threads, both are >= 1), and
//  2. store exactly where FUNMEM said: its fm_st calls, in text order, are the IMP
//     writes codegen recorded for it, each into the memory block the write names, and
//     each extracted index polynomial equals the FUNMEM index function the write came
//     from (ToImpReport::origins) applied to its indices, after the IMP names are
//     mapped through the values the kernel gives their C names at the store (`v_i` is
//     `fm_o`, or `fm_f / fm_m` in the flattened version) and quotient and remainder
//     are folded (`(f / m) * m + f % m == f`).
//
//  3. write, over its whole iteration space, the set of elements the index function
//     gives over the IMP loops: the extracted index EXPANDed over the virtual threads
//     and the C loops around it equals the index function EXPANDed over the IMP loops
//     (canonical LMADs compared; a guard the code adds is not part of either set).
//
// What is not checked here: the values stored (the differential runs do that).
#pragma once

#include "analysis/to_imp.h"
#include "codegen/cuda.h"
#include "frontend/race.h"

#include <string>
#include <vector>

namespace funmem {

struct StoreCheck {
  Pos pos;               // in the .cu file
  std::string text;      // the fm_st call
  std::string block;     // the memory block (IMP name)
  std::string extracted; // the index the extractor read, after the launch values
  std::string expected;  // the FUNMEM index function at the store's indices, in C names
  std::string index_fun; // `9 + {(10 : 9)}` applied to [i] (the origin as written)
  bool equal = false;
  std::string why; // when not equal
  /// The write sets over the kernel's whole iteration space: EXPAND of the extracted
  /// index over the virtual threads and the loops around it, and of the index function
  /// over the IMP loops around the write (both in canonical form: no unit dimensions,
  /// joined where contiguous, sorted).
  std::string extracted_lmad, expected_lmad;
  bool lmad_equal = false;
};

struct FunctionValidation {
  std::string name;
  frontend::KernelVerdict race;
  std::vector<StoreCheck> stores;
  std::vector<std::string> problems; // anything that makes the function fail
  bool ok = false;
};

struct Validation {
  std::vector<FunctionValidation> functions;
  std::vector<std::string> errors; // clang's, or a missing kernel
  bool ok() const;
};

/// Validates `code` (written to `cu_file`, which names it in positions) against the
/// origins funmem-to-imp recorded. `opt` gives the prover's budget.
Validation validate_cuda(const CudaCode& code, const ToImpReport& report,
                         const std::string& cu_file, const frontend::RaceOptions& opt = {});

/// The device part of a generated file as the extractor parses it: the runtime header
/// replaced by funmem_rt_model.h, the host code blanked (line numbers kept).
std::string device_part(const std::string& cu_text);

/// One line per function (`fm_kernel_0: validated: race-free (3 questions), 1 store
/// equal to its index function`), then the failures' details.
std::string validation_report(const Validation& v, bool verbose = false);

} // namespace funmem
