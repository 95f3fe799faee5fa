// The space input-aware tuning (docs/tuning.md, "Input-aware tuning"; seed
// isaac-input-aware-tuning.txt) searches: the legal configurations of a generated
// program, each a set of harness flags (--param, --limit, --threshold) with the numeric
// features a model of its run time reads, and input shapes, the sizes of a data set.
// verifier/comprehensive.h builds a program's space from its case discussions; the
// synthetic emulator (tune/synth.h) builds one of its own.
//
// Example: parse_shape("n=1024 m=8") gives sizes {n: 1024, m: 8}; shape_features of it
// is {log2(1025), log2(9)}.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace funmem::tune {

/// One legal configuration: what the harness is given and what a model reads.
struct TuneConfig {
  std::string flags;            // harness flags, e.g. `--param B=128 --param s=4`
  std::string label;            // what runs, e.g. `fm_kernel_0_gc B=128 s=4`
  std::vector<double> features; // one per ConfigSpace::feature_names
};

struct ConfigSpace {
  std::vector<std::string> feature_names;
  std::vector<TuneConfig> configs; // legal and pairwise distinct in what they run
  /// The grid the configurations were drawn from: points enumerated, those no leaf of
  /// some kernel's case discussion holds at (never run), those that run what an earlier
  /// point runs.
  size_t grid = 0, illegal = 0, duplicates = 0;
  /// Per grid point, the index of the configuration it runs, or -1 when illegal.
  std::vector<int> grid_map;
  /// The default configuration's index (the harness without flags), when in the space.
  std::optional<size_t> default_config;
};

/// A data set's sizes: the scalars of an `-- input:` line, in the order written.
struct Shape {
  std::string spec; // as written, e.g. `n=1024 m=8`
  std::vector<std::pair<std::string, int64_t>> sizes;
};

/// `name=value ...` with non-negative integer values; nullopt with `error` otherwise.
std::optional<Shape> parse_shape(const std::string& spec, std::string* error);
/// log2(1 + size) per size, in order.
std::vector<double> shape_features(const Shape& s);

} // namespace funmem::tune
