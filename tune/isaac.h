// Input-aware tuning (docs/tuning.md, "Input-aware tuning"; seed
// isaac-input-aware-tuning.txt): benchmark runs of sampled legal configurations on
// sampled input shapes, a regression model of log2 run time over the shape's and the
// configuration's features (tune/model.h), and run-time inference: for an input shape,
// the configuration the model predicts fastest, by exhaustive search over the legal
// space (ISAAC searches exhaustively when the space is small; ours has at most a few
// hundred points), cached per shape.
//
// Sampling. ISAAC learns a generative model of which configurations are legal and worth
// measuring, because it has no exact legality test. funmem has one: a configuration is
// legal when a leaf of every kernel's case discussion holds (verifier/comprehensive.h),
// so the legal space is enumerated exactly and sampled uniformly; `Sampling::Grid`
// samples the raw grid instead (the scheme ISAAC compares against), and counts the
// draws that would have launched nothing.
//
// Example: IsaacResult r = isaac_train(space, shapes, measure, {}); then
// choose(*r.mlp, space, shape) is the index of the configuration to run.
#pragma once

#include "tune/config_space.h"
#include "tune/model.h"

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace funmem::tune {

/// The time of configuration `config` on shape `shape` in ms (one benchmark run, or the
/// best of several); infinity when the run failed.
using Measure = std::function<double(size_t shape, size_t config)>;

enum class Sampling { Legal, Grid };

struct IsaacOptions {
  /// Configurations drawn per training shape; those outside the grid (ConfigSpace:
  /// configurations no grid point runs, a nest's forced versions) are measured on
  /// every training shape besides.
  size_t samples_per_shape = 16;
  Sampling sampling = Sampling::Legal;
  uint64_t seed = 1;
  size_t folds = 5; // cross-validation, by shape (below 2: none)
  MlpOptions mlp;
  int knn = 3;
  std::function<void(const std::string&)> progress; // one line per run, when set
};

/// The features a model reads: the shape's, then the configuration's.
std::vector<double> features(const Shape& s, const TuneConfig& c);

struct IsaacResult {
  Samples samples;
  std::vector<size_t> shape_of; // per sample, the training shape
  size_t runs = 0, failed = 0;  // benchmark runs made, of which failed (not learnt)
  size_t grid_draws = 0;        // Sampling::Grid: draws of the grid, of which illegal
  size_t illegal_draws = 0;
  std::unique_ptr<Regressor> mlp, knn;
  CrossValidation mlp_cv, knn_cv; // in log2 of ms
};

/// Samples, measures and fits both models (MLP and the k-nearest baseline).
IsaacResult isaac_train(const ConfigSpace& space, const std::vector<Shape>& shapes,
                        const Measure& measure, const IsaacOptions& o);

/// The configuration the model predicts fastest on `s` (the first of equal ones).
size_t choose(const Regressor& m, const ConfigSpace& space, const Shape& s);

/// Per input shape, the model's choice, computed once (run-time inference's cache).
class ChoiceCache {
public:
  ChoiceCache(const Regressor& m, const ConfigSpace& space) : m_(m), space_(space) {}
  size_t operator()(const Shape& s);
  const std::map<std::string, size_t>& entries() const { return cache_; }

private:
  const Regressor& m_;
  const ConfigSpace& space_;
  std::map<std::string, size_t> cache_;
};

/// Shapes drawn log-uniformly from ranges written `n=64:4096 m=8 d=16:64` (a fixed
/// value or LO:HI, 1 <= LO <= HI), rounded to integers; deterministic under `seed`.
std::optional<std::vector<Shape>> sample_shapes(const std::string& ranges, size_t count,
                                                uint64_t seed, std::string* error);

/// The tuning file's lines for the generated program (codegen/funmem_cuda_rt.h): one
/// `shape SIZES : FLAGS` line per cached shape, after a comment naming the model.
std::string shape_tuning_file(const ChoiceCache& cache, const ConfigSpace& space,
                              const std::vector<Shape>& shapes, const std::string& model);

/// One method's choices on held-out shapes against the exhaustive best.
struct MethodScore {
  std::string method;
  size_t runs = 0;           // benchmark runs it needed
  std::vector<double> ratio; // per shape: its configuration's time / the best time
  double geomean() const;
  double worst() const;
  size_t within(double fraction) const; // shapes within `fraction` of the best
};

/// Exhaustive measurement of every configuration on every held-out shape, and the
/// scores of (runs: program runs, `runs_per_measure` per measurement): the MLP's and the baseline's
/// choices, the best single configuration over these shapes, and the default configuration (when in
/// the space). `extra`, when given, adds methods measured elsewhere (the monotonic tuner's
/// thresholds): per method its runs and its time per shape.
struct HeldOutEvaluation {
  std::vector<std::vector<double>> ms; // [shape][config]
  std::vector<double> best_ms;         // per shape
  size_t exhaustive_runs = 0;
  std::vector<MethodScore> methods;
  size_t fixed_config = 0; // the best single configuration
};
HeldOutEvaluation evaluate_held_out(const IsaacResult& r, const ConfigSpace& space,
                                    const std::vector<Shape>& shapes, const Measure& measure,
                                    size_t runs_per_measure);

/// The table of docs/tuning.md: per method, geometric mean and worst ratio to the
/// exhaustive best, shapes within 10%, runs.
std::string evaluation_report(const HeldOutEvaluation& e, size_t shapes);

} // namespace funmem::tune
