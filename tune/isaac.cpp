// Input-aware tuning (see isaac.h).
#include "tune/isaac.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <sstream>

namespace funmem::tune {

namespace {

constexpr double kInfMs = std::numeric_limits<double>::infinity();

/// The configurations to measure on one training shape: those outside the grid (a
/// nest's forced versions: few, and unlike the grid's), then the samples.
std::vector<size_t> draw(const ConfigSpace& space, const IsaacOptions& o, std::mt19937_64& rng,
                         IsaacResult& r) {
  std::vector<bool> in_grid(space.configs.size(), space.grid_map.empty());
  for (int c : space.grid_map)
    if (c >= 0) in_grid[static_cast<size_t>(c)] = true;
  std::vector<size_t> out, grid;
  for (size_t c = 0; c < space.configs.size(); ++c)
    (in_grid[c] ? grid : out).push_back(c);
  if (o.sampling == Sampling::Legal) {
    std::shuffle(grid.begin(), grid.end(), rng);
    grid.resize(std::min(grid.size(), o.samples_per_shape));
    out.insert(out.end(), grid.begin(), grid.end());
    return out;
  }
  const size_t forced = out.size();
  std::vector<size_t> points(space.grid_map.size());
  std::iota(points.begin(), points.end(), 0);
  std::shuffle(points.begin(), points.end(), rng);
  for (size_t p : points) {
    if (out.size() == forced + o.samples_per_shape) break;
    ++r.grid_draws;
    if (space.grid_map[p] < 0) {
      ++r.illegal_draws;
      continue;
    }
    out.push_back(static_cast<size_t>(space.grid_map[p]));
  }
  return out;
}

std::string ratio_text(double r) {
  if (!std::isfinite(r)) return "failed";
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", r);
  return b;
}

} // namespace

std::vector<double> features(const Shape& s, const TuneConfig& c) {
  std::vector<double> f = shape_features(s);
  f.insert(f.end(), c.features.begin(), c.features.end());
  return f;
}

IsaacResult isaac_train(const ConfigSpace& space, const std::vector<Shape>& shapes,
                        const Measure& measure, const IsaacOptions& o) {
  IsaacResult r;
  std::mt19937_64 rng(o.seed);
  for (size_t s = 0; s < shapes.size(); ++s) {
    for (size_t c : draw(space, o, rng, r)) {
      const double ms = measure(s, c);
      ++r.runs;
      if (o.progress)
        o.progress(shapes[s].spec + " | " + space.configs[c].label + ": " +
                   (std::isfinite(ms) ? std::to_string(ms) + " ms" : "failed"));
      if (!std::isfinite(ms) || ms <= 0) {
        ++r.failed;
        continue;
      }
      r.samples.x.push_back(features(shapes[s], space.configs[c]));
      r.samples.y.push_back(std::log2(ms));
      r.shape_of.push_back(s);
    }
  }
  if (r.samples.x.empty()) return r;
  const MlpOptions mo = o.mlp;
  const int k = o.knn;
  RegressorFactory mlp = [mo] { return make_mlp(mo); };
  RegressorFactory knn = [k] { return make_knn(k); };
  r.mlp_cv = cross_validate(mlp, r.samples, o.folds, o.seed, &r.shape_of);
  r.knn_cv = cross_validate(knn, r.samples, o.folds, o.seed, &r.shape_of);
  r.mlp = mlp();
  r.mlp->fit(r.samples);
  r.knn = knn();
  r.knn->fit(r.samples);
  return r;
}

size_t choose(const Regressor& m, const ConfigSpace& space, const Shape& s) {
  size_t best = 0;
  double best_y = kInfMs;
  for (size_t c = 0; c < space.configs.size(); ++c) {
    const double y = m.predict(features(s, space.configs[c]));
    if (y < best_y) {
      best_y = y;
      best = c;
    }
  }
  return best;
}

size_t ChoiceCache::operator()(const Shape& s) {
  auto it = cache_.find(s.spec);
  if (it != cache_.end()) return it->second;
  const size_t c = choose(m_, space_, s);
  cache_.emplace(s.spec, c);
  return c;
}

std::optional<std::vector<Shape>> sample_shapes(const std::string& ranges, size_t count,
                                                uint64_t seed, std::string* error) {
  struct Range {
    std::string name;
    int64_t lo, hi;
  };
  std::vector<Range> rs;
  std::istringstream in(ranges);
  for (std::string item; in >> item;) {
    const size_t eq = item.find('=');
    const std::string name = item.substr(0, eq == std::string::npos ? 0 : eq);
    const std::string v = eq == std::string::npos ? "" : item.substr(eq + 1);
    const size_t colon = v.find(':');
    long long lo = 0, hi = 0;
    char tail = 0;
    const bool ok = colon == std::string::npos
                        ? std::sscanf(v.c_str(), "%lld%c", &lo, &tail) == 1
                        : std::sscanf(v.c_str(), "%lld:%lld%c", &lo, &hi, &tail) == 2;
    if (colon == std::string::npos) hi = lo;
    if (name.empty() || !ok || lo < 1 || hi < lo) {
      if (error)
        *error = "expected NAME=VALUE or NAME=LO:HI with 1 <= LO <= HI, got '" + item + "'";
      return std::nullopt;
    }
    rs.push_back({name, lo, hi});
  }
  if (rs.empty()) {
    if (error) *error = "no sizes";
    return std::nullopt;
  }
  std::mt19937_64 rng(seed);
  std::vector<Shape> out;
  for (size_t k = 0; k < count; ++k) {
    Shape s;
    for (const Range& r : rs) {
      std::uniform_real_distribution<double> u(std::log2(static_cast<double>(r.lo)),
                                               std::log2(static_cast<double>(r.hi)));
      const int64_t v =
          r.lo == r.hi ? r.lo : std::clamp<int64_t>(std::llround(std::exp2(u(rng))), r.lo, r.hi);
      s.sizes.emplace_back(r.name, v);
      s.spec += (s.spec.empty() ? "" : " ") + r.name + "=" + std::to_string(v);
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string shape_tuning_file(const ChoiceCache& cache, const ConfigSpace& space,
                              const std::vector<Shape>& shapes, const std::string& model) {
  std::string out = "# funmem-tune --model: per input shape, the configuration the " + model +
                    " predicts fastest\n";
  for (const Shape& s : shapes) {
    auto it = cache.entries().find(s.spec);
    if (it == cache.entries().end()) continue;
    const TuneConfig& c = space.configs[it->second];
    out += "# " + c.label + "\nshape " + s.spec + " : " + c.flags + "\n";
  }
  return out;
}

double MethodScore::geomean() const {
  if (ratio.empty()) return kInfMs;
  double s = 0;
  for (double r : ratio)
    s += std::log(r);
  return std::exp(s / static_cast<double>(ratio.size()));
}

double MethodScore::worst() const {
  return ratio.empty() ? kInfMs : *std::max_element(ratio.begin(), ratio.end());
}

size_t MethodScore::within(double fraction) const {
  return static_cast<size_t>(
      std::count_if(ratio.begin(), ratio.end(), [&](double r) { return r <= 1 + fraction; }));
}

HeldOutEvaluation evaluate_held_out(const IsaacResult& r, const ConfigSpace& space,
                                    const std::vector<Shape>& shapes, const Measure& measure,
                                    size_t runs_per_measure) {
  HeldOutEvaluation e;
  const size_t n = space.configs.size();
  for (size_t s = 0; s < shapes.size(); ++s) {
    std::vector<double> row(n);
    for (size_t c = 0; c < n; ++c)
      row[c] = measure(s, c);
    e.best_ms.push_back(*std::min_element(row.begin(), row.end()));
    e.ms.push_back(std::move(row));
  }
  e.exhaustive_runs = shapes.size() * n * runs_per_measure;
  auto score = [&](const std::string& name, size_t runs, auto&& config_of) {
    MethodScore m{name, runs, {}};
    for (size_t s = 0; s < shapes.size(); ++s)
      m.ratio.push_back(e.ms[s][config_of(s)] / e.best_ms[s]);
    e.methods.push_back(std::move(m));
  };
  score("exhaustive search", e.exhaustive_runs, [&](size_t s) {
    return static_cast<size_t>(std::min_element(e.ms[s].begin(), e.ms[s].end()) - e.ms[s].begin());
  });
  const size_t training_runs = r.runs * runs_per_measure;
  if (r.mlp)
    score("model: " + r.mlp->name(), training_runs,
          [&](size_t s) { return choose(*r.mlp, space, shapes[s]); });
  if (r.knn)
    score("model: " + r.knn->name(), training_runs,
          [&](size_t s) { return choose(*r.knn, space, shapes[s]); });
  double best_sum = kInfMs;
  for (size_t c = 0; c < n; ++c) {
    double sum = 0;
    for (size_t s = 0; s < shapes.size(); ++s)
      sum += std::log(e.ms[s][c] / e.best_ms[s]);
    if (sum < best_sum) {
      best_sum = sum;
      e.fixed_config = c;
    }
  }
  score("best fixed configuration (" + space.configs[e.fixed_config].label + ")", e.exhaustive_runs,
        [&](size_t) { return e.fixed_config; });
  if (space.default_config)
    score("default configuration", 0, [&](size_t) { return *space.default_config; });
  return e;
}

std::string evaluation_report(const HeldOutEvaluation& e, size_t shapes) {
  std::string out = "| method | runs | time / best: geometric mean | worst | within 10% |\n"
                    "|---|---|---|---|---|\n";
  for (const MethodScore& m : e.methods)
    out += "| " + m.method + " | " + std::to_string(m.runs) + " | " + ratio_text(m.geomean()) +
           " | " + ratio_text(m.worst()) + " | " + std::to_string(m.within(0.10)) + "/" +
           std::to_string(shapes) + " |\n";
  return out;
}

} // namespace funmem::tune
