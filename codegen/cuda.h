// IMP to CUDA C++ (docs/cuda.md). One `__global__` function per outermost IMP
// `kernel` (one thread per iteration, grid-stride when the grid is smaller than the
// iteration count); inner kernels and `for` loops become sequential loops in the
// thread; the host runs the rest and launches through FM_LAUNCH, so the same file
// compiles with nvcc and, against the CPU emulation of funmem_cuda_rt.h, with g++.
// Memory blocks are arrays of 8-byte cells (`fm_mem`), allocated with cudaMalloc.
// With checks on, every integer operation, division, cast, memory access and loop
// bound is checked as the IMP interpreter checks it, and the first failure is reported
// as `FILE:LINE:COL: error: KIND: ...`.
//
// Multi-versioning (docs/tuning.md): an outermost kernel whose body is pure
// scalar work followed by one inner kernel with an invariant bound gets three versions,
// chosen at run time by a tuning tree:
//   if n >= DEF.suff_outer_par_K         outer parallelism, inner loop sequential
//   else if m <= 1024 && m >= DEF.suff_intra_par_K   one block per outer iteration
//   else                                 both levels flattened onto the grid
// The thresholds are read at start-up (--tuning FILE, FUNMEM_TUNING, --threshold).
//
// Example: imp_to_cuda(p, {ScalarType::I64}, {}) on `kernel i < n do m[i] <- i done`
// gives a kernel `fm_kernel_0(int64_t fm_n, fm_mem p_m)` and one FM_LAUNCH in main.
#pragma once

#include "ir/imp.h"
#include "ir/symbolic.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace funmem {

/// One leaf of a kernel's case discussion as the host dispatcher launches it
/// (comprehensive parametric kernels, docs/comprehensive.md).
struct CudaLeaf {
  /// C boolean over the program parameters `B` (block size; a kernel nest's blocks are
  /// `B0` rows of `B1` threads), `s` (thread granularity) and the machine's limits `T`
  /// (threads per block), `Z` (shared memory bytes per block), `R` (registers per
  /// thread): the leaf's system of constraints.
  std::string condition;
  std::string function;         // the variant it launches (CudaVariant::function)
  bool granularity_one = false; // the granularity strategy: the leaf runs with s = 1
  std::string label;            // its strategies, for messages
};

struct CudaOptions {
  int block_size = 256;            // threads per block (FM_BLOCK, overridable with -D)
  bool checks = true;              // --checks=on|off
  std::string source_file = "fun"; // named in run-time error messages
  bool versions = true;            // multi-versioned kernel nests (--single-version: off)
  /// Comprehensive parametric kernels: every outermost kernel also gets variants over a
  /// run-time block size and thread granularity, with and without shared-memory tiles
  /// of its reused inputs, each also under every register cap of `register_caps`
  /// (CudaKernelInfo::variants). A multi-versioned nest's variants have two-dimensional
  /// blocks and take the place of its flattened version.
  bool parametric = false;
  std::vector<int> register_caps = {24};
  /// Per kernel (fm_kernel_K), the leaves the host dispatcher chooses between; a kernel
  /// without an entry launches its plain version.
  std::map<std::string, std::vector<CudaLeaf>> leaves;
};

/// A shared-memory tile of a parametric kernel's cached variant: the cells of `mem`
/// that the iterations of one block read (each 8 bytes), loaded once per block before
/// a barrier. One-dimensional: `stride * (B * s - 1) + span + 1` cells. Two-dimensional
/// (a nest's blocks of B0 x B1 threads, s inner iterations each): B0 rows by B1 * s
/// columns, `span` more along dimension `unit` (0: rows, 1: columns), the one whose
/// index coefficient is 1 and which is fastest in the tile.
struct CudaTile {
  std::string mem; // IMP name
  int64_t stride = 1;
  int64_t span = 0;
  int reads = 0; // IMP reads served from the tile
  int dims = 1;
  int unit = 1;
  /// Two-dimensional tiles of a strip-tiled nest (the inner body's sequential loop over
  /// q cut into strips of B0 iterations): `Rows`, B0 rows by the B0 values of q of a
  /// strip; `Columns`, the strip's B0 values of q by B1 * s columns; `State`, `span`
  /// values per iteration of the block kept across the strips' barriers.
  enum class Strip { None, Rows, Columns, State };
  Strip strip = Strip::None;
};

/// The cells of a tile for blocks of B threads (B0 rows of B threads) of granularity s,
/// and the shared memory bytes a cached variant with `tiles` asks per block (8-byte
/// cells): the one home of these sizes (the kernel's tile lengths, the launch, the case
/// discussion's counter).
Poly tile_cells(const CudaTile& t, const Poly& B, const Poly& s, const Poly& B0 = Poly(1));
/// A two-dimensional tile's rows (`dim` 0) or columns (1).
Poly tile_extent(const CudaTile& t, int dim, const Poly& B, const Poly& s, const Poly& B0);
Poly tile_bytes(const std::vector<CudaTile>& tiles, const Poly& B, const Poly& s,
                const Poly& B0 = Poly(1));

/// A variant of a parametric kernel.
struct CudaVariant {
  std::string function; // fm_kernel_K_g, fm_kernel_K_gc, ..._rN (a nest's: _b2, _b2c)
  bool cache = false;   // reads its tiles from shared memory
  int register_cap = 0; // __maxnreg__ (0: none)
};

/// One threshold of the generated tuning forest: `if P >= T` chooses `version`, else
/// the branch goes on to the threshold whose parent this one is (false side) or to the
/// last version. Thresholds are numbered in depth-first order.
struct CudaThreshold {
  std::string name;      // DEF.suff_outer_par_K or DEF.suff_intra_par_K
  int parent = -1;       // index of the threshold on whose false side this one sits
  std::string kernel;    // fm_kernel_K
  Pos pos;               // the IMP kernel
  std::string exploits;  // P, as text (`n`, `m`)
  std::string version;   // the version chosen when P >= T
  std::string otherwise; // the version run when this is the last threshold and P < T
  int64_t default_value = 0;
};

/// What holds on the host when a kernel is launched, over IMP names: `expr` holds
/// (an assert passed, an `if` branch taken) or fails (an else branch), `name == expr`
/// (an assignment not changed since), or `0 <= name < expr` (a host loop's counter).
struct HostFact {
  enum class Kind { Holds, Fails, Equal, Below };
  Kind kind = Kind::Holds;
  std::string name;
  SExpP expr;
  std::vector<std::string> names; // every name it mentions
};

/// One `__global__` function of the generated file (a kernel or one of its versions),
/// as translation validation (frontend/validate.h) needs it.
struct CudaFunction {
  std::string name;    // fm_kernel_K, fm_kernel_K_intra, fm_kernel_K_flat
  std::string version; // "" (the only or outer-parallel version), "intra", "flat", or a
                       // parametric variant's suffix ("g", "gc", "g_r24", ...)
  /// The IMP writes it stores through fm_st, in the order of the text, as indices into
  /// ToImpReport::origins (-1: a write without a recorded origin).
  std::vector<int> stores;
  /// Per store, the IMP loops around it inside the kernel (the kernel's own iterator
  /// first): counter and bound, over IMP names.
  std::vector<std::vector<std::pair<std::string, SExpP>>> store_loops;
  bool parametric = false; // a comprehensive kernel's variant (chunk and round loops)
  int block_dims = 1;      // 2: a nest's variant, rows and columns of chunks
};

struct CudaKernelInfo {
  std::string name;                // fm_kernel_K
  Pos pos;                         // the IMP kernel it came from
  std::vector<std::string> params; // IMP names, passed as p_<C name>
  /// What the host passes as `fm_n` (the kernel's bound) and, for a multi-versioned
  /// nest, `fm_m` (the inner bound, also the block size of the intra version): IMP
  /// expressions over the host's names (null when absent).
  SExpP outer_bound, inner_bound;
  std::vector<CudaFunction> functions;
  std::vector<HostFact> host_facts; // at its launch
  /// Comprehensive parametric kernels (CudaOptions::parametric): the variants and the
  /// tiles the cached ones use (empty tiles: no cached variant); `block_dims` 2 for a
  /// nest's (blocks of B0 x B1 threads).
  std::vector<CudaVariant> variants;
  std::vector<CudaTile> tiles;
  int block_dims = 1;
};

struct CudaCode {
  std::string text;
  std::vector<CudaKernelInfo> kernels;
  std::vector<CudaThreshold> thresholds; // the tuning forest (empty: one version each)
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

/// The C identifier of an IMP name in generated code (`v_` + the name with `_` doubled
/// and `'` as `_p`); kernel parameters add a `p_` in front.
std::string cuda_name(const std::string& imp_name);

/// C++ spelling of a scalar type (int64_t, int32_t, double, float, bool).
const char* c_type(ScalarType t);

} // namespace funmem
