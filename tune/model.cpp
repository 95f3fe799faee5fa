// Regression models of run time (see model.h).
#include "tune/model.h"

#include <dlib/dnn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>

namespace funmem::tune {

namespace {

/// Per-feature mean and deviation of the training samples, and the target's.
struct Scaling {
  std::vector<double> mean, dev;
  double y_mean = 0, y_dev = 1;

  explicit Scaling(const Samples& s) {
    const size_t n = s.x.size(), d = s.x.empty() ? 0 : s.x[0].size();
    mean.assign(d, 0);
    dev.assign(d, 0);
    for (const auto& x : s.x)
      for (size_t j = 0; j < d; ++j)
        mean[j] += x[j] / static_cast<double>(n);
    for (const auto& x : s.x)
      for (size_t j = 0; j < d; ++j)
        dev[j] += (x[j] - mean[j]) * (x[j] - mean[j]) / static_cast<double>(n);
    for (double& v : dev)
      v = v > 1e-12 ? std::sqrt(v) : 1.0;
    y_mean = std::accumulate(s.y.begin(), s.y.end(), 0.0) / static_cast<double>(n);
    double var = 0;
    for (double y : s.y)
      var += (y - y_mean) * (y - y_mean) / static_cast<double>(n);
    y_dev = var > 1e-12 ? std::sqrt(var) : 1.0;
  }
  std::vector<double> x(const std::vector<double>& raw) const {
    if (raw.size() != mean.size()) throw std::invalid_argument("feature count differs");
    std::vector<double> out(raw.size());
    for (size_t j = 0; j < raw.size(); ++j)
      out[j] = (raw[j] - mean[j]) / dev[j];
    return out;
  }
};

using Net = dlib::loss_mean_squared<dlib::fc<
    1, dlib::relu<dlib::fc<64, dlib::relu<dlib::fc<64, dlib::input<dlib::matrix<float, 0, 1>>>>>>>>;

class Mlp : public Regressor {
public:
  explicit Mlp(const MlpOptions& o) : o_(o) {}
  std::string name() const override {
    return o_.ensemble > 1 ? "MLP 64-64 x" + std::to_string(o_.ensemble) : "MLP 64-64";
  }

  void fit(const Samples& s) override {
    if (s.x.empty()) throw std::invalid_argument("no samples");
    scale_ = std::make_unique<Scaling>(s);
    std::vector<dlib::matrix<float, 0, 1>> x;
    std::vector<float> y;
    for (size_t i = 0; i < s.x.size(); ++i) {
      x.push_back(column(scale_->x(s.x[i])));
      y.push_back(static_cast<float>((s.y[i] - scale_->y_mean) / scale_->y_dev));
    }
    nets_.clear();
    for (int k = 0; k < std::max(1, o_.ensemble); ++k)
      nets_.push_back(train(x, y, o_.seed + 7919 * static_cast<uint64_t>(k)));
  }

  double predict(const std::vector<double>& raw) const override {
    if (nets_.empty()) throw std::logic_error("predict before fit");
    const dlib::matrix<float, 0, 1> in = column(scale_->x(raw));
    double sum = 0;
    for (const auto& net : nets_)
      sum += static_cast<double>((*net)(in));
    return sum / static_cast<double>(nets_.size()) * scale_->y_dev + scale_->y_mean;
  }

private:
  /// One network trained from the seed's initial weights, in the seed's batch order.
  std::unique_ptr<Net> train(const std::vector<dlib::matrix<float, 0, 1>>& x,
                             const std::vector<float>& y, uint64_t seed) const {
    // dlib seeds each layer's initial weights from std::rand.
    std::srand(static_cast<unsigned>(seed));
    auto net = std::make_unique<Net>();
    dlib::dnn_trainer<Net, dlib::adam> trainer(*net, dlib::adam(0, 0.9, 0.999));
    trainer.set_learning_rate(o_.learning_rate);
    trainer.set_min_learning_rate(o_.learning_rate * 1e-3);
    trainer.set_iterations_without_progress_threshold(500);
    trainer.be_quiet();
    std::mt19937_64 rng(seed);
    std::vector<size_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    const size_t batch = static_cast<size_t>(std::max(1, o_.batch));
    std::vector<dlib::matrix<float, 0, 1>> bx;
    std::vector<float> by;
    for (int e = 0; e < o_.epochs; ++e) {
      std::shuffle(order.begin(), order.end(), rng);
      for (size_t at = 0; at < order.size(); at += batch) {
        bx.clear();
        by.clear();
        for (size_t k = at; k < std::min(order.size(), at + batch); ++k) {
          bx.push_back(x[order[k]]);
          by.push_back(y[order[k]]);
        }
        trainer.train_one_step(bx, by);
      }
    }
    trainer.get_net(); // waits for the steps queued
    net->clean();
    return net;
  }

  static dlib::matrix<float, 0, 1> column(const std::vector<double>& v) {
    dlib::matrix<float, 0, 1> m(static_cast<long>(v.size()));
    for (size_t j = 0; j < v.size(); ++j)
      m(static_cast<long>(j)) = static_cast<float>(v[j]);
    return m;
  }
  MlpOptions o_;
  std::unique_ptr<Scaling> scale_;
  std::vector<std::unique_ptr<Net>> nets_; // dlib's forward pass is not const: owned apart
};

class Knn : public Regressor {
public:
  explicit Knn(int k) : k_(static_cast<size_t>(std::max(1, k))) {}
  std::string name() const override { return std::to_string(k_) + "-nearest neighbours"; }

  void fit(const Samples& s) override {
    if (s.x.empty()) throw std::invalid_argument("no samples");
    scale_ = std::make_unique<Scaling>(s);
    x_.clear();
    for (const auto& x : s.x)
      x_.push_back(scale_->x(x));
    y_ = s.y;
  }

  double predict(const std::vector<double>& raw) const override {
    if (!scale_) throw std::logic_error("predict before fit");
    const std::vector<double> q = scale_->x(raw);
    std::vector<std::pair<double, size_t>> d;
    d.reserve(x_.size());
    for (size_t i = 0; i < x_.size(); ++i) {
      double s = 0;
      for (size_t j = 0; j < q.size(); ++j)
        s += (q[j] - x_[i][j]) * (q[j] - x_[i][j]);
      d.emplace_back(std::sqrt(s), i);
    }
    const size_t k = std::min(k_, d.size());
    std::partial_sort(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(k), d.end());
    double num = 0, den = 0;
    for (size_t i = 0; i < k; ++i) {
      const double w = 1.0 / (d[i].first + 0.01);
      num += w * y_[d[i].second];
      den += w;
    }
    return num / den;
  }

private:
  size_t k_;
  std::unique_ptr<Scaling> scale_;
  std::vector<std::vector<double>> x_;
  std::vector<double> y_;
};

} // namespace

std::unique_ptr<Regressor> make_mlp(const MlpOptions& o) {
  return std::make_unique<Mlp>(o);
}
std::unique_ptr<Regressor> make_knn(int k) {
  return std::make_unique<Knn>(k);
}

CrossValidation cross_validate(const RegressorFactory& make, const Samples& s, size_t folds,
                               uint64_t seed, const std::vector<size_t>* group) {
  CrossValidation cv;
  const size_t n = s.x.size();
  if (n < 2 || folds < 2) return cv;
  // Fold of each group (a sample is its own group without `group`), shuffled.
  std::vector<size_t> g(n);
  for (size_t i = 0; i < n; ++i)
    g[i] = group ? (*group)[i] : i;
  std::vector<size_t> groups = g;
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  std::mt19937_64 rng(seed);
  std::shuffle(groups.begin(), groups.end(), rng);
  folds = std::min(folds, groups.size());
  if (folds < 2) return cv;
  std::map<size_t, size_t> fold_of;
  for (size_t k = 0; k < groups.size(); ++k)
    fold_of[groups[k]] = k % folds;
  double se = 0, ae = 0;
  for (size_t f = 0; f < folds; ++f) {
    Samples train, test;
    for (size_t i = 0; i < n; ++i) {
      Samples& to = fold_of[g[i]] == f ? test : train;
      to.x.push_back(s.x[i]);
      to.y.push_back(s.y[i]);
    }
    std::unique_ptr<Regressor> m = make();
    m->fit(train);
    for (size_t i = 0; i < test.x.size(); ++i) {
      const double e = m->predict(test.x[i]) - test.y[i];
      se += e * e;
      ae += std::abs(e);
    }
  }
  cv.folds = folds;
  cv.rmse = std::sqrt(se / static_cast<double>(n));
  cv.mae = ae / static_cast<double>(n);
  return cv;
}

} // namespace funmem::tune
