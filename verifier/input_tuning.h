// Input-aware tuning of a generated program (funmem-tune --model; docs/tuning.md,
// "Input-aware tuning"): the legal configuration space of its comprehensive parametric
// kernels, benchmark runs on sampled input shapes through the generated program (the
// GPU when present, else the CPU emulation), the models of tune/isaac.h, the per-shape
// choices written as a tuning file the program reads, and, on held-out shapes, the
// model's choices against exhaustive measurement, the best fixed configuration, the
// program's defaults and the monotonic tuner's thresholds.
//
// The space. A grid of program parameters and limits: B in {32, ..., 1024} for
// one-dimensional kernels, B0 in {1, ..., 16} x B1 in {16, ..., 128} (B0*B1 <= 1024)
// for nests, s in {1, 2, 4, 8} (nests: {1, 2, 4}), Z at the machine's limit or 0 (which
// leaves out the shared-memory tiles), and with `registers` R at the machine's limit or
// the register cap. A point is legal when, for every kernel, a leaf of its case
// discussion holds there (the leaf the dispatcher takes: the first that holds); two
// points are the same configuration when every kernel runs the same variant with the
// same block shape and effective granularity. A program with multi-versioned nests
// also has the outer and intra-block versions forced by thresholds (the grid's points
// set every threshold to infinity, which gives the nests' dispatchers the place of the
// flattened version).
//
// Example: tuning_space(comprehensive_kernels(transpose)) has the configurations
// `fm_kernel_0_b2c B0=8 B1=32 s=4`, ..., `outer`, `intra`.
#pragma once

#include "tune/config_space.h"
#include "tune/isaac.h"
#include "verifier/comprehensive.h"

#include <functional>
#include <string>
#include <vector>

namespace funmem {

struct TuningSpaceOptions {
  bool registers = false; // R as a knob (the emulation ignores register caps)
  int64_t T = 1024, Z = 49152, R = 255;
};

tune::ConfigSpace tuning_space(const Comprehensive& c, const TuningSpaceOptions& o);

struct InputTuningOptions {
  std::string ranges; // training and held-out shapes, e.g. `n=64:2048 m=64:2048`
  size_t train_shapes = 32, held_out_shapes = 10;
  std::vector<std::string> queries; // further shapes to write choices for
  int repeats = 2;                  // timings per measurement (the least is taken)
  double timeout_s = 60;
  bool evaluate = true; // exhaustive measurement of the held-out shapes, and baselines
  tune::IsaacOptions isaac;
  std::string work; // input files and tuning files go here
  std::string log;  // the log of runs ("" none); replayed when it exists
  std::function<void(const std::string&)> progress;
};

struct InputTuningResult {
  bool ok = false;
  std::string error;
  std::string report;      // the space, the training, the models and the evaluation
  std::string tuning_file; // shape lines for the held-out and query shapes (the MLP's)
  int executed = 0, replayed = 0;
};

/// Tunes `exe` (built from `cpk.code`) over shapes of `lowered`'s inputs.
InputTuningResult input_tuning(const Lowered& lowered, const Comprehensive& cpk,
                               const std::string& exe, const InputTuningOptions& o);

} // namespace funmem
