// A seeded synthetic program for input-aware tuning (docs/tuning.md): a one-dimensional
// kernel over `n` elements with `m` operations each, whose configurations are a block
// size B, a thread granularity s and a shared-memory tile (on or off), with a cost
// model of a GPU of 16 multiprocessors (waves of resident threads, per-block and
// per-wave overheads, idle threads of the last block, the tile's loads against its
// cheaper operations, occupancy falling for large blocks) whose constants are jittered
// per seed. The tile is illegal where it exceeds the shared memory (8 * (B*s + 2) bytes
// above Z), so the space has illegal grid points as a real one does. The best
// configuration changes with the shape, and enumeration gives it, so a model's choices
// can be judged exactly.
//
// Example: SynthProgram p = synth_program(3); p.cost(shape, c) is configuration c's
// noise-free time in ms; synth_measure(p, shapes, 0.02, 3) measures with 2% noise.
#pragma once

#include "tune/config_space.h"
#include "tune/isaac.h"

#include <cstdint>
#include <vector>

namespace funmem::tune {

struct SynthProgram {
  ConfigSpace space;
  /// What each configuration of `space` sets.
  struct Point {
    int64_t b = 0, s = 0;
    bool tile = false;
  };
  std::vector<Point> points;
  // The cost model's constants.
  double launch_ms = 0.01, block_us = 0.5, wave_us = 2.0, op_ns = 1.0, cached_op_ns = 0.4,
         load_ns = 3.0;
  int64_t smem_bytes = 16384; // Z
  /// Noise-free time in ms of configuration `c` on a shape with sizes n and m.
  double cost(const Shape& s, size_t c) const;
};

SynthProgram synth_program(uint64_t seed);

/// Measures p's configurations on `shapes` with relative Gaussian noise `noise`.
Measure synth_measure(const SynthProgram& p, const std::vector<Shape>& shapes, double noise,
                      uint64_t seed);

} // namespace funmem::tune
