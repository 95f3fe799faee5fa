// The tuning-tree emulator (see emulator.h and docs/tuning.md).
#include "tune/emulator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace funmem::tune {

namespace {

constexpr double kInfCost = std::numeric_limits<double>::infinity();
constexpr double kHardware = 16384; // threads the emulated GPU runs at once

/// Time of `work` spread over `par` threads at `c` per unit (ms per 10^6 units).
double par_time(double work, double par, double c) {
  return work * c / std::min(std::max(par, 1.0), kHardware) * 1e-3;
}

/// The cost constants of a two-level nest (sizes: q outer, r inner, w work per
/// element): V0 outer-parallel, V1 a block per outer iteration (warp granularity,
/// fits when r <= 1024), V2 both levels flattened (global memory, more launches).
struct NestCosts {
  double c_outer = 1.0, c_intra = 0.7, c_flat = 1.3;
  double launch = 0.005;    // ms per launch
  double flat_launches = 4; // the flattened version's extra launches
  double mem_limit = 0;     // bytes; 0: none (flat needs 8*q*r)
};

double nest_cost(const NestCosts& k, int v, const EmuLaunch& l) {
  const double q = l.sizes[0], r = l.sizes[1], w = l.sizes.size() > 2 ? l.sizes[2] : 1.0;
  switch (v) {
  case 0:
    return par_time(q * r * w, q, k.c_outer) + k.launch;
  case 1: {
    if (r > 1024) return kInfCost;
    double warps = std::ceil(r / 32) * 32;
    return par_time(q * warps * w, q * warps, k.c_intra) + k.launch;
  }
  default:
    if (k.mem_limit > 0 && 8 * q * r > k.mem_limit) return kInfCost;
    return par_time(q * r * w, q * r, k.c_flat) + k.launch * k.flat_launches;
  }
}

struct Builder {
  EmuCase c;
  std::mt19937_64 rng;
  explicit Builder(const std::string& name, uint64_t seed) : rng(seed * 7919 + name.size()) {
    c.name = name;
  }
  double jitter(double spread) {
    return 1.0 + spread * (std::uniform_real_distribution<double>(-1, 1)(rng));
  }
  int64_t shift(int64_t v, int range) { // v * 2^s, s in [-range, range]
    int s = std::uniform_int_distribution<int>(-range, range)(rng);
    return s >= 0 ? v << s : std::max<int64_t>(1, v >> -s);
  }
  /// A tree of the nest model with thresholds NAME.suff_outer_par / suff_intra_par.
  int nest_tree(const std::string& name, NestCosts k) {
    k.c_outer *= jitter(0.1);
    k.c_intra *= jitter(0.1);
    k.c_flat *= jitter(0.1);
    int outer = static_cast<int>(c.forest.thresholds.size());
    c.forest.thresholds.push_back({name + ".suff_outer_par", -1, 32768, "outer parallel"});
    c.forest.thresholds.push_back({name + ".suff_intra_par", outer, 32, "intra-block"});
    EmuTree t;
    t.thresholds = {outer, outer + 1};
    t.cost = [k](int v, const EmuLaunch& l) { return nest_cost(k, v, l); };
    c.trees.push_back(t);
    return static_cast<int>(c.trees.size()) - 1;
  }
  static EmuLaunch nest_launch(int tree, double q, double r, double w = 1.0) {
    EmuLaunch l;
    l.tree = tree;
    l.sizes = {q, r, w};
    l.p = {static_cast<int64_t>(q), static_cast<int64_t>(r)};
    l.reachable = {true, r <= 1024};
    return l;
  }
  void dataset(const std::string& name, std::vector<EmuLaunch> ls) {
    c.datasets.push_back({name, std::move(ls)});
  }
};

EmuCase mapscan(uint64_t seed, bool skewed) {
  Builder b(skewed ? "mapscan-skewed" : "mapscan", seed);
  int t = b.nest_tree("mapscan", {});
  // (outer, inner) shapes from tall to wide; 64 sequential steps per row, one launch.
  std::vector<std::pair<int64_t, int64_t>> shapes = {{b.shift(1 << 20, 1), 16},
                                                     {b.shift(256, 1), 256},
                                                     {b.shift(1024, 1), 4096},
                                                     {8, b.shift(1 << 20, 1)}};
  if (skewed) shapes.push_back({shapes[0].first * 4, 64}); // taller, yet the inner fits a block
  for (auto [q, r] : shapes)
    b.dataset(std::to_string(q) + "x" + std::to_string(r),
              {Builder::nest_launch(t, static_cast<double>(q), static_cast<double>(r), 64)});
  return b.c;
}

EmuCase lud(uint64_t seed) {
  Builder b("lud", seed);
  b.c.size_variant = true;
  NestCosts internal;
  internal.c_outer = 0.6; // the outer version reuses a block's tile in registers
  int ti = b.nest_tree("lud.internal", internal);
  NestCosts perimeter;
  perimeter.c_outer = 0.8;
  int tp = b.nest_tree("lud.perimeter", perimeter);
  const int64_t bs = 16;
  for (int64_t blocks : {b.shift(32, 1), b.shift(128, 1), b.shift(512, 1)}) {
    std::vector<EmuLaunch> ls;
    for (int64_t k = 0; k + 1 < blocks; ++k) {
      double s = static_cast<double>(blocks - k - 1);
      ls.push_back(Builder::nest_launch(tp, s, bs * bs, 2 * bs));
      ls.push_back(Builder::nest_launch(ti, s * s, bs * bs, bs));
    }
    b.dataset("n=" + std::to_string(blocks * bs), std::move(ls));
  }
  return b.c;
}

EmuCase locvolcalib(uint64_t seed) {
  Builder b("locvolcalib", seed);
  int tx = b.nest_tree("locvolcalib.x", {});
  int ty = b.nest_tree("locvolcalib.y", {});
  int tr = b.nest_tree("locvolcalib.rollback", {});
  struct D {
    const char* name;
    int64_t outer, nx, ny, nt;
  };
  for (D d : {D{"small", 16, 32, 256, 64}, D{"medium", 128, 256, 32, 64},
              D{"large", 256, 256, 256, 64}}) {
    int64_t o = b.shift(d.outer, 1);
    std::vector<EmuLaunch> ls;
    for (int64_t t = 0; t < d.nt; ++t) { // the same sizes every time step: size-invariant
      ls.push_back(
          Builder::nest_launch(tx, static_cast<double>(o * d.ny), static_cast<double>(d.nx), 4));
      ls.push_back(
          Builder::nest_launch(ty, static_cast<double>(o * d.nx), static_cast<double>(d.ny), 4));
      ls.push_back(
          Builder::nest_launch(tr, static_cast<double>(o), static_cast<double>(d.nx * d.ny), 1));
    }
    b.dataset(d.name, std::move(ls));
  }
  return b.c;
}

EmuCase bfast(uint64_t seed) {
  Builder b("bfast", seed);
  NestCosts k;
  k.mem_limit = 4e9; // the flattened versions' temporaries do not fit for africa
  std::vector<int> trees;
  for (const char* n :
       {"bfast.mktrend", "bfast.invert", "bfast.beta", "bfast.predict", "bfast.mosum"})
    trees.push_back(b.nest_tree(n, k));
  struct D {
    const char* name;
    int64_t pixels, n;
  };
  for (D d : {D{"peru", 111556, 235}, D{"africa", 582630, 414}, D{"sahara", 4096, 2048}}) {
    int64_t m = b.shift(d.pixels, 1);
    std::vector<EmuLaunch> ls;
    const double inner[] = {static_cast<double>(d.n), 8.0 * 8.0, 8.0 * static_cast<double>(d.n),
                            static_cast<double>(d.n), static_cast<double>(d.n) / 2};
    for (size_t t = 0; t < trees.size(); ++t)
      ls.push_back(Builder::nest_launch(trees[t], static_cast<double>(m), inner[t], 8));
    b.dataset(d.name, std::move(ls));
  }
  return b.c;
}

EmuCase gemm(uint64_t seed, bool skewed) {
  Builder b(skewed ? "gemm-skewed" : "gemm", seed);
  b.c.forest.thresholds.push_back(
      {"gemm.indirect", -1, 1 << 24, "indirect GEMM (copy, pad, tiled)"});
  const double peak = 2e4 * b.jitter(0.1), copy = 2e-3 * b.jitter(0.1);
  EmuTree t;
  t.thresholds = {0};
  t.cost = [=](int v, const EmuLaunch& l) {
    const double m = l.sizes[0], n = l.sizes[1], k = l.sizes[2];
    if (v == 0) return 2 * m * n * k / peak * 1e-3 + (m * k + k * n + m * n) * copy * 1e-3 + 0.02;
    return 2 * m * n * k / (peak * 0.4) * 1e-3 + 0.005;
  };
  b.c.trees.push_back(t);
  std::vector<std::array<int64_t, 3>> shapes = {
      {64, 64, 64}, {b.shift(256, 1), 256, 256}, {1024, 1024, 1024}, {4096, 4096, b.shift(512, 1)}};
  if (skewed) shapes.push_back({8, 8, 1 << 22}); // large m*n*k, mostly copying
  for (auto s : shapes) {
    EmuLaunch l;
    l.sizes = {static_cast<double>(s[0]), static_cast<double>(s[1]), static_cast<double>(s[2])};
    l.p = {s[0] * s[1] * s[2]};
    l.reachable = {true};
    b.dataset(std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]), {l});
  }
  return b.c;
}

} // namespace

std::vector<std::string> emulator_case_names() {
  return {"mapscan", "lud", "locvolcalib", "bfast", "gemm", "mapscan-skewed", "gemm-skewed"};
}

EmuCase emulator_case(const std::string& name, uint64_t seed) {
  EmuCase c;
  if (name == "mapscan" || name == "mapscan-skewed")
    c = mapscan(seed, name == "mapscan-skewed");
  else if (name == "lud")
    c = lud(seed);
  else if (name == "locvolcalib")
    c = locvolcalib(seed);
  else if (name == "bfast")
    c = bfast(seed);
  else if (name == "gemm" || name == "gemm-skewed")
    c = gemm(seed, name == "gemm-skewed");
  else
    throw std::invalid_argument("no emulator case '" + name + "'");
  // A run times out at 50 times the slowest data set's best time.
  EmuCase::Optimum o = c.optimum();
  double worst = 0;
  for (double x : o.per_dataset)
    worst = std::max(worst, x);
  c.timeout_ms = 50 * worst + 1;
  c.overhead_ms = 0.01;
  return c;
}

int EmuCase::choose(const EmuLaunch& l, const std::vector<int64_t>& t,
                    std::map<int, std::map<int64_t, int64_t>>* log) const {
  const EmuTree& tree = trees[static_cast<size_t>(l.tree)];
  for (size_t k = 0; k < tree.thresholds.size(); ++k) {
    if (!l.reachable[k]) continue;
    int th = tree.thresholds[k];
    if (log) ++(*log)[th][l.p[k]];
    if (l.p[k] >= t[static_cast<size_t>(th)]) return static_cast<int>(k);
  }
  return static_cast<int>(tree.thresholds.size());
}

double EmuCase::cost(size_t d, const std::vector<int64_t>& t) const {
  double s = overhead_ms;
  for (const EmuLaunch& l : datasets[d].launches)
    s += trees[static_cast<size_t>(l.tree)].cost(choose(l, t, nullptr), l);
  return s;
}

double EmuCase::total(const std::vector<int64_t>& t) const {
  double s = 0;
  for (size_t d = 0; d < datasets.size(); ++d)
    s += cost(d, t);
  return s;
}

std::vector<std::vector<int64_t>> EmuCase::candidates() const {
  std::vector<std::set<int64_t>> s(forest.thresholds.size());
  for (const EmuDataset& d : datasets)
    for (const EmuLaunch& l : d.launches) {
      const EmuTree& tree = trees[static_cast<size_t>(l.tree)];
      for (size_t k = 0; k < tree.thresholds.size(); ++k)
        if (l.reachable[k]) s[static_cast<size_t>(tree.thresholds[k])].insert(l.p[k]);
    }
  std::vector<std::vector<int64_t>> out;
  for (auto& x : s) {
    out.emplace_back(x.begin(), x.end());
    out.back().push_back(kInf);
  }
  return out;
}

EmuCase::Optimum EmuCase::optimum() const {
  Optimum o;
  const auto cands = candidates();
  o.config.assign(forest.thresholds.size(), kInf);
  o.per_dataset.assign(datasets.size(), overhead_ms);
  o.total = overhead_ms * static_cast<double>(datasets.size());
  for (size_t ti = 0; ti < trees.size(); ++ti) {
    const EmuTree& tree = trees[ti];
    std::vector<size_t> idx(tree.thresholds.size(), 0);
    std::vector<int64_t> t(forest.thresholds.size(), kInf);
    double best_total = kInfCost;
    std::vector<double> best_d(datasets.size(), kInfCost);
    std::vector<int64_t> best_cfg;
    for (;;) {
      for (size_t k = 0; k < idx.size(); ++k) {
        size_t th = static_cast<size_t>(tree.thresholds[k]);
        t[th] = cands[th][idx[k]];
      }
      ++o.configurations;
      double tot = 0;
      for (size_t d = 0; d < datasets.size(); ++d) {
        double s = 0;
        for (const EmuLaunch& l : datasets[d].launches)
          if (l.tree == static_cast<int>(ti)) s += tree.cost(choose(l, t, nullptr), l);
        best_d[d] = std::min(best_d[d], s);
        tot += s;
      }
      if (tot < best_total) {
        best_total = tot;
        best_cfg.clear();
        for (int th : tree.thresholds)
          best_cfg.push_back(t[static_cast<size_t>(th)]);
      }
      size_t k = 0;
      for (; k < idx.size(); ++k) {
        size_t th = static_cast<size_t>(tree.thresholds[k]);
        if (++idx[k] < cands[th].size()) break;
        idx[k] = 0;
      }
      if (k == idx.size()) break;
    }
    for (size_t k = 0; k < tree.thresholds.size() && !best_cfg.empty(); ++k)
      o.config[static_cast<size_t>(tree.thresholds[k])] = best_cfg[k];
    o.total += best_total;
    for (size_t d = 0; d < datasets.size(); ++d)
      o.per_dataset[d] += best_d[d];
  }
  return o;
}

bool EmuCase::monotone(std::string* why) const {
  for (const EmuTree& tree : trees)
    for (size_t k = 0; k < tree.thresholds.size(); ++k) {
      // (P, sign of cost(V_k) - best below) over every launch that reaches the branch.
      std::vector<std::pair<int64_t, int>> seen;
      for (const EmuDataset& d : datasets)
        for (const EmuLaunch& l : d.launches) {
          if (&trees[static_cast<size_t>(l.tree)] != &tree || !l.reachable[k]) continue;
          double below = kInfCost;
          for (size_t v = k + 1; v <= tree.thresholds.size(); ++v)
            if (v == tree.thresholds.size() || l.reachable[v])
              below = std::min(below, tree.cost(static_cast<int>(v), l));
          double mine = tree.cost(static_cast<int>(k), l);
          int sign = 0;
          if (mine != below) {
            double scale = std::max(std::abs(std::isinf(mine) ? below : mine), 1e-12);
            if (std::isinf(mine) || std::isinf(below) || std::abs(mine - below) > 1e-9 * scale)
              sign = mine < below ? -1 : 1;
          }
          seen.emplace_back(l.p[k], sign);
        }
      for (const auto& [pa, sa] : seen)
        for (const auto& [pb, sb] : seen)
          if (sa < 0 && sb > 0 && pb >= pa) {
            if (why)
              *why = forest.thresholds[static_cast<size_t>(tree.thresholds[k])].name +
                     ": the guarded version wins at P = " + std::to_string(pa) +
                     " but loses at P = " + std::to_string(pb);
            return false;
          }
    }
  return true;
}

RunResult EmuRunner::run(size_t d, const std::vector<int64_t>& thresholds) {
  ++runs;
  RunResult r;
  double s = c_.overhead_ms;
  for (const EmuLaunch& l : c_.datasets[d].launches) {
    int v = c_.choose(l, thresholds, &r.comparisons);
    double x = c_.trees[static_cast<size_t>(l.tree)].cost(v, l);
    if (std::isinf(x)) {
      r.status = RunResult::Status::Failed;
      r.error = "out of memory (version " + std::to_string(v) + " of tree " +
                std::to_string(l.tree) + ")";
      return r;
    }
    s += x;
  }
  if (c_.noise > 0)
    s *= std::max(0.5, 1.0 + c_.noise * std::normal_distribution<double>(0, 1)(rng_));
  if (c_.timeout_ms > 0 && s > c_.timeout_ms) {
    r.status = RunResult::Status::Timeout;
    r.error = "timed out";
    return r;
  }
  r.ms = s;
  return r;
}

} // namespace funmem::tune
