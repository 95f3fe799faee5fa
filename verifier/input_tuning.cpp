// Input-aware tuning of a generated program (see input_tuning.h).
#include "verifier/input_tuning.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace funmem {

using tune::ConfigSpace;
using tune::TuneConfig;

namespace {

/// One grid point: the program parameters and limits.
struct GridPoint {
  int64_t b = 256, b0 = 8, b1 = 32, s = 1, z = 0, r = 0;
};

/// What one kernel runs at a grid point: nullopt when no leaf holds (the dispatcher
/// would stop with `no leaf`).
struct KernelRun {
  std::string function, key;
  int64_t s = 1;
};

std::optional<KernelRun> kernel_run(const KernelCases& k, const GridPoint& p,
                                    const TuningSpaceOptions& o) {
  const bool two = k.block_dims == 2;
  const int64_t threads = two ? p.b0 * p.b1 : p.b;
  Env env{{"s", p.s}, {"T", o.T}, {"Z", p.z}};
  env["R"] = std::min({o.R, int64_t{65536} / std::max<int64_t>(threads, 1), p.r});
  if (two) {
    env["B0"] = p.b0;
    env["B1"] = p.b1;
  } else {
    env["B"] = p.b;
  }
  for (size_t l = 0; l < k.leaves.size(); ++l) {
    if (!all_hold(k.systems[l], env)) continue;
    KernelRun run;
    run.function = k.leaves[l].function;
    run.s = k.leaves[l].granularity_one ? 1 : p.s;
    run.key = run.function +
              (two ? " B0=" + std::to_string(p.b0) + " B1=" + std::to_string(p.b1)
                   : " B=" + std::to_string(p.b)) +
              " s=" + std::to_string(run.s);
    return run;
  }
  return std::nullopt;
}

const CudaVariant* variant_named(const CudaCode& code, const std::string& fn) {
  for (const CudaKernelInfo& k : code.kernels)
    for (const CudaVariant& v : k.variants)
      if (v.function == fn) return &v;
  return nullptr;
}

std::vector<GridPoint> grid(bool one, bool two, const TuningSpaceOptions& o) {
  std::vector<int64_t> bs =
      one ? std::vector<int64_t>{32, 64, 128, 256, 512, 1024} : std::vector<int64_t>{256};
  std::vector<std::pair<int64_t, int64_t>> b01;
  for (int64_t b0 : two ? std::vector<int64_t>{1, 2, 4, 8, 16} : std::vector<int64_t>{8})
    for (int64_t b1 : two ? std::vector<int64_t>{16, 32, 64, 128} : std::vector<int64_t>{32})
      if (b0 * b1 <= 1024) b01.emplace_back(b0, b1);
  const std::vector<int64_t> ss =
      two ? std::vector<int64_t>{1, 2, 4} : std::vector<int64_t>{1, 2, 4, 8};
  const std::vector<int64_t> rs =
      o.registers ? std::vector<int64_t>{o.R, 24} : std::vector<int64_t>{o.R};
  std::vector<GridPoint> out;
  for (int64_t b : bs)
    for (auto [b0, b1] : b01)
      for (int64_t s : ss)
        for (int64_t z : {o.Z, int64_t{0}})
          for (int64_t r : rs)
            out.push_back({b, b0, b1, s, z, r});
  return out;
}

/// The configurations of the grid's points (legal and distinct).
void grid_configs(const Comprehensive& c, const TuningSpaceOptions& o, bool one, bool two,
                  ConfigSpace& sp) {
  const bool versions = !c.code.thresholds.empty();
  std::map<std::string, size_t> seen;
  for (const GridPoint& p : grid(one, two, o)) {
    ++sp.grid;
    TuneConfig cfg;
    std::string key;
    if (one) cfg.features.push_back(std::log2(static_cast<double>(p.b)));
    if (two) {
      cfg.features.push_back(std::log2(static_cast<double>(p.b0)));
      cfg.features.push_back(std::log2(static_cast<double>(p.b1)));
    }
    bool legal = true;
    for (const KernelCases& k : c.kernels) {
      auto run = kernel_run(k, p, o);
      if (!run) {
        legal = false;
        break;
      }
      const CudaVariant* v = variant_named(c.code, run->function);
      key += (key.empty() ? "" : ", ") + run->key;
      cfg.features.push_back(std::log2(static_cast<double>(run->s)));
      cfg.features.push_back(v && v->cache ? 1.0 : 0.0);
      cfg.features.push_back(v && v->register_cap > 0 ? 1.0 : 0.0);
    }
    if (!legal) {
      ++sp.illegal;
      sp.grid_map.push_back(-1);
      continue;
    }
    if (auto it = seen.find(key); it != seen.end()) {
      ++sp.duplicates;
      sp.grid_map.push_back(static_cast<int>(it->second));
      continue;
    }
    if (versions) cfg.features.insert(cfg.features.end(), {0.0, 0.0});
    if (one) cfg.flags += "--param B=" + std::to_string(p.b) + " ";
    if (two)
      cfg.flags +=
          "--param B0=" + std::to_string(p.b0) + " --param B1=" + std::to_string(p.b1) + " ";
    cfg.flags += "--param s=" + std::to_string(p.s);
    // Limits below the machine's (the defaults: those of current NVIDIA GPUs) as flags.
    const TuningSpaceOptions machine;
    if (o.T != machine.T) cfg.flags += " --limit T=" + std::to_string(o.T);
    if (p.z != machine.Z) cfg.flags += " --limit Z=" + std::to_string(p.z);
    if (p.r != machine.R) cfg.flags += " --limit R=" + std::to_string(p.r);
    if (versions) cfg.flags += " --threshold '*=inf'";
    cfg.label = key;
    seen.emplace(key, sp.configs.size());
    sp.grid_map.push_back(static_cast<int>(sp.configs.size()));
    sp.configs.push_back(std::move(cfg));
  }
}

} // namespace

ConfigSpace tuning_space(const Comprehensive& c, const TuningSpaceOptions& o) {
  ConfigSpace sp;
  bool one = false, two = false;
  for (const KernelCases& k : c.kernels)
    (k.block_dims == 2 ? two : one) = true;
  if (one) sp.feature_names.push_back("log2 B");
  if (two) {
    sp.feature_names.push_back("log2 B0");
    sp.feature_names.push_back("log2 B1");
  }
  for (const KernelCases& k : c.kernels)
    for (const char* f : {" log2 s", " tile", " capped"})
      sp.feature_names.push_back(k.kernel + f);
  const bool versions = !c.code.thresholds.empty();
  if (versions) {
    sp.feature_names.push_back("outer");
    sp.feature_names.push_back("intra");
  }
  grid_configs(c, o, one, two, sp);
  if (versions) {
    const size_t n = sp.feature_names.size();
    TuneConfig outer{"--threshold '*=0'", "outer versions", std::vector<double>(n, 0.0)};
    outer.features[n - 2] = 1;
    TuneConfig intra{"--threshold '*=0' --threshold '*.suff_outer_par_*=inf'",
                     "intra-block versions (flattened above 1024)", std::vector<double>(n, 0.0)};
    intra.features[n - 1] = 1;
    sp.configs.push_back(std::move(outer));
    sp.configs.push_back(std::move(intra));
  }
  return sp;
}

} // namespace funmem
