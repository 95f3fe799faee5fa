// The synthetic program of input-aware tuning (see synth.h).
#include "tune/synth.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

namespace funmem::tune {

namespace {

constexpr int64_t kBlocks[] = {32, 64, 128, 256, 512, 1024};
constexpr int64_t kGrains[] = {1, 2, 4, 8};

int64_t size_of(const Shape& s, const char* name, int64_t def) {
  for (const auto& [n, v] : s.sizes)
    if (n == name) return v;
  return def;
}

} // namespace

double SynthProgram::cost(const Shape& shape, size_t c) const {
  const Point& p = points[c];
  const double n = static_cast<double>(std::max<int64_t>(1, size_of(shape, "n", 1)));
  const double m = static_cast<double>(std::max<int64_t>(1, size_of(shape, "m", 1)));
  const double B = static_cast<double>(p.b), s = static_cast<double>(p.s);
  const double threads = std::ceil(n / s), blocks = std::ceil(threads / B);
  const double occ = std::min(16.0, std::floor(2048.0 / B)); // resident blocks per SM
  const double waves = std::ceil(blocks / (16.0 * occ));
  const double per_sm = std::min(occ, std::ceil(blocks / 16.0));
  const double lanes = std::max(1.0, per_sm * B / 128.0);
  const double thread_ns = p.tile ? s * m * cached_op_ns + (B * s + 2) / B * load_ns + 20.0
                                  : s * (m * op_ns + 3 * load_ns);
  const double wave_ms = (wave_us * 1e3 + thread_ns * lanes) * 1e-6;
  return launch_ms + waves * wave_ms + blocks * block_us * 1e-3 / 16.0;
}

SynthProgram synth_program(uint64_t seed) {
  SynthProgram p;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(0.7, 1.3);
  p.block_us *= jitter(rng);
  p.wave_us *= jitter(rng);
  p.op_ns *= jitter(rng);
  p.cached_op_ns *= jitter(rng);
  p.load_ns *= jitter(rng);
  ConfigSpace& sp = p.space;
  sp.feature_names = {"log2 B", "log2 s", "tile"};
  for (int64_t b : kBlocks)
    for (int64_t s : kGrains)
      for (bool tile : {true, false}) {
        ++sp.grid;
        if (tile && 8 * (b * s + 2) > p.smem_bytes) {
          ++sp.illegal;
          sp.grid_map.push_back(-1);
          continue;
        }
        TuneConfig c;
        c.flags = "--param B=" + std::to_string(b) + " --param s=" + std::to_string(s) +
                  (tile ? "" : " --limit Z=0");
        c.label = "B=" + std::to_string(b) + " s=" + std::to_string(s) + (tile ? " tile" : "");
        c.features = {std::log2(static_cast<double>(b)), std::log2(static_cast<double>(s)),
                      tile ? 1.0 : 0.0};
        if (b == 256 && s == 1 && tile) sp.default_config = sp.configs.size();
        sp.grid_map.push_back(static_cast<int>(sp.configs.size()));
        sp.configs.push_back(std::move(c));
        p.points.push_back({b, s, tile});
      }
  return p;
}

Measure synth_measure(const SynthProgram& p, const std::vector<Shape>& shapes, double noise,
                      uint64_t seed) {
  auto rng = std::make_shared<std::mt19937_64>(seed);
  return [&p, &shapes, noise, rng](size_t s, size_t c) {
    std::normal_distribution<double> g(0.0, noise);
    return p.cost(shapes[s], c) * std::max(0.5, 1.0 + (noise > 0 ? g(*rng) : 0.0));
  };
}

} // namespace funmem::tune
