// Regression models of run time for input-aware tuning (docs/tuning.md, "Input-aware
// tuning"; seed isaac-input-aware-tuning.txt, section 5): a multi-layer perceptron
// trained with dlib's DNN module, and k nearest neighbours as the baseline. Both read
// features as given (input-aware tuning passes log2 sizes and log2 parameters) and
// standardise them and the target (each feature to mean 0 and deviation 1) from the
// training samples. Deterministic: the same samples and seed give the same model.
//
// Example: auto m = make_mlp({}); m->fit(samples); m->predict({10, 7, 2}) estimates
// log2 of the run time at those features; cross_validate(factory, samples, 5, 1) gives
// the error of 5-fold cross-validation.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace funmem::tune {

struct Samples {
  std::vector<std::vector<double>> x; // features, all of one length
  std::vector<double> y;              // the target (log2 of a time)
};

class Regressor {
public:
  virtual ~Regressor() = default;
  /// Trains on `s` (at least one sample), replacing what was learnt before.
  virtual void fit(const Samples& s) = 0;
  virtual double predict(const std::vector<double>& x) const = 0;
  virtual std::string name() const = 0;
};

struct MlpOptions {
  int epochs = 200; // passes over the samples
  int batch = 32;   // samples per step
  double learning_rate = 0.003;
  uint64_t seed = 1; // the initial weights and the order of the samples
  int ensemble = 1;  // networks from as many seeds, their predictions averaged
};

/// Two hidden layers of 64 ReLU units and a linear output, mean squared error, Adam;
/// with `ensemble` > 1, the mean of that many such networks.
std::unique_ptr<Regressor> make_mlp(const MlpOptions& o);
/// The mean of the k nearest training samples' targets (Euclidean distance over the
/// standardised features, ties to the earlier sample), weighted by 1 / (distance + 0.01).
std::unique_ptr<Regressor> make_knn(int k);

using RegressorFactory = std::function<std::unique_ptr<Regressor>()>;

struct CrossValidation {
  size_t folds = 0;
  double rmse = 0; // root mean squared error of the held-out predictions
  double mae = 0;  // mean absolute error
};

/// k-fold cross-validation: the samples shuffled under `seed`, cut into `folds` parts,
/// each predicted by a model fitted to the others. Groups: when `group` is given (one
/// per sample, e.g. the input shape), whole groups go to one fold, so a fold's shapes
/// are unseen in training.
CrossValidation cross_validate(const RegressorFactory& make, const Samples& s, size_t folds,
                               uint64_t seed, const std::vector<size_t>* group = nullptr);

} // namespace funmem::tune
