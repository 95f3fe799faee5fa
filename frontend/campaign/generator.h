// A random CUDA kernel generator in the style of Csmith (docs/extract.md, "Generated
// kernels"): seeded, every kernel self-contained, free of undefined behaviour at the
// launches it is run at (every signed operation's range is tracked and kept inside its
// type, divisors are positive constants, every index lies inside its buffer), and
// reaching the constructs of the extractor's construct table: integer types of every
// width and signedness with casts, wrap-around and shifts; structures, unions,
// bit-fields and reference members; loops whose bounds and steps are read from memory,
// `while`, `do`, `break`, `continue`, `switch`; static, dynamic and file-scope shared
// memory; atomics of mixed widths; device functions, function pointers, virtual
// methods, templates and lambdas; warp intrinsics; 1-D to 3-D thread indices.
//
// Example: `generate_kernel(7, 3)` is kernel 3 of seed 7, named `g7_3`; its
// `constructs` say which of `generator_constructs()` it contains.
#pragma once

#include "frontend/dynamic/race_run.h"

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace funmem::frontend {

/// The element count of every pointer argument's buffer (indices stay below it).
inline constexpr int64_t kGeneratedElements = 4096;

struct GeneratedKernel {
  std::string name;
  std::string source; // the kernel and its helpers: a file on its own
  std::set<std::string> constructs;
};

/// Kernel `index` of the campaign seeded `seed` (the same arguments, the same text).
/// `simple`: the simple profile, short and shallow kernels without the constructs the
/// extractor refuses (most get a verdict; the broken variants' tests use it).
GeneratedKernel generate_kernel(uint64_t seed, uint64_t index, bool simple = false);

/// Every construct the generator produces, in the coverage report's order.
const std::vector<std::string>& generator_constructs();

/// The launches every generated kernel runs at: 1-D to 3-D blocks and grids, scalar
/// arguments `s0`..`s2` set to boundary values (0, 1, -1, 255, 256, 2^31 - 1, ...),
/// distinct and zero buffer contents. The generator keeps every index in bounds and
/// every signed operation defined for all of them.
std::vector<Launch> generator_launches();

} // namespace funmem::frontend

#include "frontend/campaign/differential.h"

#include <map>

namespace funmem::frontend {

/// The generated-kernel campaign (funmem-race-fuzz --generate): kernels
/// [first, first + count) of `seed`, in files of `batch` kernels (one parse for the
/// static verdicts, one detector build). Each kernel's static verdict is compared with
/// the detector's runs at every launch of generator_launches() its verdict's
/// assumptions allow (a verdict assuming size 1 in y and z, only at such launches): a
/// `race-free` with an observed race is a soundness failure (shrunk, written to
/// `race.regress_dir`); a `race` whose witness launch runs without one is an
/// unconfirmed witness; a generated kernel that does not compile, or whose run leaves
/// its buffers or does not finish, is a generator failure.
struct GeneratedCampaignOptions {
  uint64_t seed = 1, first = 0, count = 100;
  int batch = 25;
  bool simple = false;      // the simple profile (generate_kernel)
  RaceCampaignOptions race; // budgets, folders, broken variant, progress
};

struct GeneratedCampaignResult {
  uint64_t kernels = 0, race_free = 0, race = 0, unknown = 0, unsupported = 0;
  uint64_t runs = 0, observed = 0; // (kernel, launch) runs compared; those with a race
  uint64_t witnesses = 0;          // static witnesses confirmed by a run
  /// Per construct: kernels containing it, those of them statically race-free, and
  /// those of them where a run observed a race.
  std::map<std::string, std::array<uint64_t, 3>> coverage;
  std::vector<Failure> failures;
  double seconds = 0, static_seconds = 0, compile_seconds = 0, dynamic_seconds = 0;
  void add(const GeneratedCampaignResult& o);
};

GeneratedCampaignResult generated_campaign(const GeneratedCampaignOptions& opt);

/// The coverage report: a row per construct of generator_constructs().
std::string coverage_report(const GeneratedCampaignResult& r);

} // namespace funmem::frontend
