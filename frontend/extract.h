// The Clang LibTooling front end of funmem-extract (docs/extract.md): parses CUDA device
// code (-x cuda --cuda-device-only -nocudainc with the bundled funmem_cuda_min.h, so no
// CUDA installation is needed) and summarises every `__global__` function's accesses,
// with the device functions, methods and constructors it calls inlined, to its memory
// objects (pointer parameters' targets, `__shared__`, `__device__` and `__constant__`
// variables): the object, read / write / atomic, the byte range as an index in the
// object's unit (the largest size dividing every offset and size of its accesses;
// wider accesses cover their units through a synthetic counter `fm_unit_N`) as a
// polynomial in the built-in variables (`threadIdx_x`, `blockIdx_x`, `blockDim_x`,
// `gridDim_x`, ... with `_` for `.`), scalar parameters and loop counters, the
// enclosing loops and conditions, and the barrier interval. What it cannot follow is
// listed as unsupported with its position; a census of every node that can touch
// memory makes sure that nothing is dropped silently.
//
// Example: `__global__ void k(float* a, int n) { int i = blockIdx.x * blockDim.x +
// threadIdx.x; if (i < n) a[i] = 0; }` gives one write of `a` at
// `blockIdx_x*blockDim_x + threadIdx_x` guarded by `blockIdx_x*blockDim_x +
// threadIdx_x < n`.
#pragma once

#include "analysis/formula.h"
#include "frontend/model/thread_space.h"
#include "ir/ast.h"
#include "ir/symbolic.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace funmem::frontend {

enum class Space { Global, Shared };

/// An enclosing loop: its counter takes `lower + step * k` for k in [0, count), or,
/// for a geometric loop (`s >>= 1`, `s /= 2`), the values lower, lower / 2, ... while
/// greater than `count` (or at least `count` when `inclusive`), or, when it is also
/// `doubling` (`s *= 2`, `s <<= 1`), lower, 2 lower, ... while below `count` (or at
/// most `count` when `inclusive`).
struct LoopCtx {
  std::string var;
  Poly lower, count, step = 1;
  bool geometric = false, inclusive = false, doubling = false;
  bool barrier = false;       // the body has __syncthreads() at its top level
  std::vector<Formula> facts; // what the counter satisfies inside the body
};

struct Access {
  std::string array; // the object
  Space space = Space::Global;
  bool write = false;  // a write (atomics too)
  bool atomic = false; // an atomic read-modify-write
  /// Atomics: the bytes they touch (naturally aligned, as CUDA requires). Two atomics
  /// do not race when they have the same width (then they touch the same bytes or
  /// none); of different widths they do, where their bytes overlap. 0: not constant.
  int64_t width = 0;
  int64_t unit = 1;            // bytes per index step of this object
  Poly index;                  // unit index into the object
  std::vector<Formula> guards; // enclosing conditions and earlier early returns
  /// The access happens exactly as summarised: every enclosing condition became a guard
  /// and the index and guards mention no unknown value (`fm_any_N`). The witness search
  /// uses exact accesses only; the others are over-approximations, good for proofs.
  bool exact_guards = true;
  std::vector<LoopCtx> loops; // enclosing loops, outermost first
  int phase = 0;              // barrier interval
  int grid_phase = 0;         // grid barrier interval (cooperative groups' grid sync)
  Pos pos;
  std::string text; // the access as written
  /// Writes only: the value stored when every thread stores the same one (a constant,
  /// or a polynomial in names all threads share), as text.
  std::optional<std::string> value;
  /// Writes only: the integer stored, as C's value (no wrap left open), when the
  /// extractor follows it: the witness search evaluates it under the equality
  /// abstraction, where two writes race only with different values.
  std::optional<Poly> stored;
  std::vector<Formula> stored_if; // where `stored` is C's value (its range checks)
  /// Writes only: the integer locals the extractor follows at this point, by name, as
  /// polynomials (what translation validation maps the source's names through).
  std::map<std::string, Poly> scope;
};

/// A C integer operation or conversion whose value the model takes as the mathematical
/// one (a polynomial): exact only where that value lies in the C type's range, `cond`.
/// The race checker proves it under the guards and loops where the value is used; where
/// it cannot, a wrap that C defines (unsigned arithmetic, a conversion, `>>` of a
/// negative value) leaves the verdict `unknown`, and a signed overflow, which C leaves
/// undefined, is assumed absent and said so in the verdict.
/// RangeCheck::type of the check that `>>` has no negative operand.
inline constexpr const char* kShiftOfNegative = "a right shift of a non-negative value";

/// The name of a range check's operation across extractions: where it is, its text and
/// the type it must stay in (a conversion and the operation it converts share the rest).
/// The type part of a loop summary's obligation's wrap_key.
inline constexpr const char* kLoopSummary = "a loop summary";
inline std::string wrap_key(const Pos& pos, const std::string& text, const std::string& type) {
  return std::to_string(pos.line) + ":" + std::to_string(pos.col) + ":" + text + ":" + type;
}

struct RangeCheck {
  Formula cond;
  bool undefined = false;            // signed overflow (undefined behaviour)
  bool before_preconditions = false; // from a precondition: proved without them
  /// A 64-bit signed overflow: its range lies beyond the model's 64-bit coefficients, so
  /// `cond` is `true` and the overflow is assumed (and said) without a question.
  bool assumed = false;
  Pos pos;
  std::string text, type; // the expression and its C type
  std::string key;        // wrap_key
  /// Not a wrap but a condition a summary needs (a loop counter that never wraps, a step
  /// that counts up): never taken modulo; `unknown` with this message where it fails.
  std::string obligation;
  std::vector<Formula> guards;
  std::vector<LoopCtx> loops;
};

struct Problem {
  Pos pos;
  std::string what;
};

/// A node of the census: something that can touch memory, and what the extractor made
/// of it (an access, private storage, no memory, an inlined call, ...; empty: nothing,
/// which makes the kernel unsupported).
struct CensusEntry {
  Pos pos;
  std::string text, how;
};

/// An entry of the value census: a value the extractor does not follow exactly, named by
/// an unknown (`fm_any_N`: any value its facts allow, its own in each thread), where and
/// why. Every value that feeds an address, a guard, a loop's bound or step or a
/// precondition is a polynomial of the kernel's names or has such unknowns in it.
struct ValueEntry {
  Pos pos;
  std::string unknown, text, why;
};

/// A GPUVerify assertion (`__assert(e)`, `__global_assert(e)`): checked, never trusted.
struct Assertion {
  Pos pos;
  std::string kind = "assert"; // "assert", or "invariant" (a loop's, checked at its head)
  std::string text;            // e as written
  std::optional<Formula> cond; // e, when it is a formula (no annotation predicate in it)
  std::vector<Formula> guards; // where it is
  std::vector<LoopCtx> loops;
};

struct KernelSummary {
  std::string name;
  Pos pos;
  std::vector<std::string> scalar_params, pointer_params, shared_arrays;
  std::vector<std::string> global_vars; // `__device__` / `__constant__` variables used
  /// The size in bytes of each variable object (`__shared__`, `__device__`,
  /// `__constant__`); -1 for the block's dynamic shared memory (every `extern __shared__`
  /// array, one object), whose size the launch sets. Pointer parameters' targets have none.
  std::map<std::string, int64_t> object_bytes;
  std::vector<std::string> thread_names; // built-in names the kernel uses
  std::vector<Access> accesses;
  std::vector<Problem> unsupported;     // constructs it cannot follow
  std::vector<RangeCheck> range_checks; // where the polynomials are C's values
  std::vector<Problem> unknown;         // followed, but barrier intervals it cannot order
  int barriers = 0;
  std::vector<CensusEntry> census;
  /// GPUVerify preconditions (`__requires(e)` first in the kernel's own body, over its
  /// scalar parameters and launch sizes): facts of the launch a verdict assumes.
  std::vector<Formula> preconditions;
  std::vector<std::string> precondition_texts; // each as written, for verdicts
  /// Values the extractor over-approximates (a value read from memory, the result of a
  /// function without a body, a local after branches that assign it differently, a
  /// local assigned in a loop at the start of an iteration, ...): each is a name
  /// `fm_any_N` that may take any integer value, a different one in each thread.
  std::vector<std::string> unknowns;
  std::vector<Formula> unknown_facts; // what is known of them (`fm_any_3 >= 0`)
  std::vector<ValueEntry> values;     // the value census: one entry per unknown
  /// The ranges of the scalar parameters' C types (`-2147483648 <= n <= 2147483647`).
  std::vector<Formula> type_facts;
  std::vector<Assertion> assertions;
  /// The kernel calls through a function pointer: every function of the file of the
  /// called type whose address is taken is assumed to be the one called, or none.
  bool indirect_calls = false;
  /// Functions the program declares without a body that the kernel calls (values only):
  /// compiled elsewhere, each is assumed to touch none of the kernel's memory.
  std::vector<std::string> bodyless_calls;
  /// The kernel (or a function it calls) has a `__syncwarp`: no barrier in the model,
  /// but it may order two threads of one warp, so such a pair is no witness of a race.
  bool warp_barriers = false;
};

struct ExtractResult {
  std::vector<KernelSummary> kernels;
  std::vector<std::string> errors; // `file:line:col: error: ...` from clang
};

/// Deliberately broken variants of the extractor, for the tests that show the census
/// and the differential campaign catch them (never set by the tools' users):
/// `unvisited-member-stores` returns from a store to a structure member without
/// looking at it (the census catches it); `dropped-member-stores` looks at it and
/// records nothing (only the dynamic detector can catch it); `dropped-casts`,
/// `unread-loop-headers`, `distinct-extern-shared` and `unchecked-loop-summaries` (a
/// loop summary's obligations not asked) are caught by the generated-kernel campaign.
struct ExtractOptions {
  std::string broken;
  /// Operations and conversions (wrap_key) whose wrap C defines and the race checker
  /// did not prove absent: modelled exactly, as C's value modulo the type's size
  /// (`lo + ((x - lo) mod 2^w)`, and `>>` of a negative value as a floor division),
  /// without a range check (check_cuda_file's second round). A loop summary's
  /// obligation (RangeCheck::obligation, its key's type kLoopSummary) named here leaves
  /// the loop not summarised: any number of iterations, any counter value.
  std::set<std::string> modular;
};

/// Parses `code` (named `file`) with clang and summarises its kernels.
ExtractResult extract(const std::string& code, const std::string& file,
                      const std::vector<std::string>& clang_args = {},
                      const ExtractOptions& options = {});

/// The text of funmem_cuda_min.h.
const char* cuda_min_header();
/// The text of funmem_rt_model.h, parsed in place of funmem-cuda's runtime header; the
/// extractor maps it at `kRtModelPath`.
const char* rt_model_header();
inline constexpr const char* kRtModelPath = "/funmem-extract/funmem_rt_model.h";

} // namespace funmem::frontend
