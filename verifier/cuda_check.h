// Differential testing of generated CUDA code (docs/cuda.md): a FUN or FUNMEM
// program is lowered through the memory pipeline to IMP and CUDA, the .cu file is
// built (g++ against the CPU emulation; nvcc when present) and run on every data set,
// and each result element is compared with the value semantics of the source program.
// An input on which the interpreter fails must make the generated program fail with
// the same error kind.
#pragma once

#include "analysis/to_imp.h"
#include "codegen/cuda.h"
#include "interp/interp.h"
#include "ir/ast.h"

#include <optional>
#include <string>
#include <vector>

namespace funmem {

struct LowerOptions {
  bool short_circuit = true; // run sc in the pipeline
  CudaOptions cuda;
};

struct Lowered {
  Program source;                       // as parsed
  Program funmem;                       // after the pipeline (input of to-imp)
  imp::Program imp;                     // the IMP program the CUDA code comes from
  CudaCode code;                        // the .cu text
  ToImpReport imp_stats;                // IMP kernels, copies and elided copies
  CudaOptions cuda;                     // what the code was generated with
  std::vector<ScalarType> result_types; // of the IMP program's results, as the harness prints them
  std::vector<std::string> stages;
};

/// Parses, type-checks and lowers `text` (named `path`: `.fun` or `.funmem`). On
/// failure returns nullopt and sets `error` (`file:line:col: error: ...` for parse and
/// type errors, `stage S: ...` for a pass that failed, `codegen: ...`).
std::optional<Lowered> lower_to_cuda(const std::string& path, const std::string& text,
                                     const LowerOptions& opt, std::string* error);

/// Writes the .cu file and, next to it, funmem_cuda_rt.h. Returns an error or "".
std::string write_cuda(const std::string& cu_path, const CudaCode& code);

/// `/usr/local/cuda/bin/nvcc` when present, else "".
std::string nvcc_path();
/// Whether a CUDA GPU can run code here (nvidia-smi lists one).
bool gpu_present();

/// Compiles the .cu file: with g++ as C++20 against the emulation (-fopenmp
/// -ffp-contract=off), or with nvcc (-O3 --fmad=false -arch=ARCH). Returns the
/// compiler's messages on failure, "" on success. With `precompile_header` the
/// emulation build first precompiles funmem_cuda_rt.h next to the .cu file (once per
/// directory; a 60 MB .gch that saves about a fifth of each later build), for callers
/// that build many programs in one scratch directory. The emulation is built with -O2,
/// or with -O0 for `EmuOpt::Quick` (a third of the compile time, for programs that run
/// on small data sets: the results are the same, IEEE arithmetic without contraction).
/// One directory's builds must all use one level (the .gch is built with it).
enum class EmuOpt { Fast, Quick };
std::string build_emulation(const std::string& cu_path, const std::string& exe_path,
                            bool precompile_header = false, EmuOpt opt = EmuOpt::Fast);
/// Builds the CPU emulation of several generated .cu files as one executable (one g++
/// run: the runtime's code is compiled once, not once per file): each file is included
/// in a namespace of its own in `batch_path`, whose folder must hold the runtime header
/// (precompiled there with -DFM_BATCH) and no single-file build's; file k runs when the
/// executable's arguments include `emulation_batch_args(k)`. "" on success, else g++'s
/// messages.
std::string build_emulation_batch(const std::vector<std::string>& cu_paths,
                                  const std::string& batch_path, const std::string& exe_path,
                                  EmuOpt opt = EmuOpt::Fast);
std::string emulation_batch_args(size_t k);
/// Compiles several generated .cu files' kernels in one nvcc run (`--cubin`): each file
/// is included in a namespace of its own in `batch_path` (the runtime header once), so
/// nvcc parses the runtime header once instead of once per file. "" on success, else
/// nvcc's messages.
std::string build_nvcc_batch(const std::vector<std::string>& cu_paths,
                             const std::string& batch_path, const std::string& arch = "sm_80");
/// With `device_only`, only the kernels are compiled (`--cubin`, about 4x faster than a
/// whole build): `exe_path` receives the cubin.
std::string build_nvcc(const std::string& cu_path, const std::string& exe_path,
                       const std::string& arch = "sm_80", bool device_only = false);

/// The harness's input text for one data set (docs/cuda.md: `scalar NAME TYPE VALUE`,
/// `mem NAME COUNT TYPE VALUE ...`).
std::string harness_input(const Inputs& imp_inputs);
/// The harness input for a data set written as on an `-- input:` line (`n=1000 m=8`):
/// scalars as given, every memory block as `random TYPE SEED` (no text per element).
std::optional<std::string> harness_random_input(const Lowered& l, const std::string& sizes,
                                                std::string* error);
/// Parses the harness's output: one Data per result (a memory block as a 1-d array).
std::optional<std::vector<Data>> parse_harness_output(const std::string& text,
                                                      std::string* error = nullptr);

struct CudaRun {
  std::string name;        // "input at line 12", "--input 2", "random inputs"
  bool ok = false;         // results equal (or the same error kind on both sides)
  std::string detail;      // what differed, or the error both gave
  std::string time_report; // the harness's --time lines
  double run_ms = 0;       // the whole process (reading inputs, writing results)
  double program_ms = -1;  // the program proper (with --time; -1 without)
};

/// Runs `exe` on every data set of the source (its `-- input:` lines, or one seeded
/// random set) and compares with the value semantics.
/// `extra_args` go to the program (for example `--threshold '*=0'`).
std::vector<CudaRun> run_and_compare(const Lowered& l, const std::string& exe, bool time,
                                     uint64_t seed = 0, const std::string& work_dir = "",
                                     const std::string& extra_args = "");

/// The harness flags that force one version of every multi-versioned nest.
struct ForcedVersion {
  std::string name; // outer, intra, flat
  std::string args;
};
/// The three forced configurations of a program with a tuning forest (empty without).
std::vector<ForcedVersion> forced_versions(const CudaCode& code);

} // namespace funmem
