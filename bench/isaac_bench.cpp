// funmem-bench-isaac: input-aware tuning on the synthetic program (tune/synth.h) over
// seeds (the table in docs/tuning.md, "Input-aware tuning"). Per seed: a program with
// jittered constants, a model trained on sampled shapes with noisy measurements, and
// its choices on held-out shapes against the noise-free best by enumeration, the best
// fixed configuration and the default one; per sampling scheme and model.
#include "tune/isaac.h"
#include "tune/synth.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace funmem::tune;

int main(int argc, char** argv) {
  CLI::App app{"funmem-bench-isaac: input-aware tuning on the synthetic program"};
  int seeds = 10, shapes = 30, held_out = 20;
  size_t samples = 16;
  double noise = 0.02;
  int epochs = MlpOptions{}.epochs;
  app.add_option("--seeds", seeds, "programs (seeds 1..N)");
  app.add_option("--shapes", shapes, "training shapes per program");
  app.add_option("--held-out", held_out, "held-out shapes per program");
  app.add_option("--samples", samples, "configurations measured per training shape");
  app.add_option("--noise", noise, "relative noise of a training measurement");
  app.add_option("--epochs", epochs, "MLP epochs");
  CLI11_PARSE(app, argc, argv);
  const std::string ranges = "n=1024:16777216 m=1:256";
  struct Total {
    double log_geo = 0, worst = 0, train_s = 0, rmse = 0;
    size_t within = 0, shapes = 0, runs = 0, illegal = 0;
  };
  std::map<std::string, Total> totals;
  for (int seed = 1; seed <= seeds; ++seed) {
    const SynthProgram p = synth_program(static_cast<uint64_t>(seed));
    std::string error;
    const auto train =
        sample_shapes(ranges, static_cast<size_t>(shapes), static_cast<uint64_t>(seed) * 2, &error);
    const auto held = sample_shapes(ranges, static_cast<size_t>(held_out),
                                    static_cast<uint64_t>(seed) * 2 + 1, &error);
    for (Sampling sampling : {Sampling::Legal, Sampling::Grid}) {
      IsaacOptions o;
      o.samples_per_shape = samples;
      o.sampling = sampling;
      o.seed = static_cast<uint64_t>(seed);
      o.mlp.epochs = epochs;
      auto t0 = std::chrono::steady_clock::now();
      IsaacResult r = isaac_train(p.space, *train, synth_measure(p, *train, noise, 9), o);
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const Measure exact = [&](size_t s, size_t c) { return p.cost((*held)[s], c); };
      HeldOutEvaluation e = evaluate_held_out(r, p.space, *held, exact, 1);
      const std::string scheme = sampling == Sampling::Legal ? "legal space" : "raw grid";
      for (const MethodScore& m : e.methods) {
        const bool model = m.method.rfind("model: ", 0) == 0;
        if (!model && sampling == Sampling::Grid) continue; // counted with the other scheme
        Total& t = totals[(model ? scheme + ", " : std::string()) +
                          m.method.substr(0, m.method.find(" ("))];
        t.log_geo += std::log(m.geomean());
        t.worst = std::max(t.worst, m.worst());
        t.within += m.within(0.10);
        t.shapes += m.ratio.size();
        t.runs += m.runs;
        if (model) {
          t.train_s += secs;
          t.illegal += r.illegal_draws;
          t.rmse += m.method.find("MLP") != std::string::npos ? r.mlp_cv.rmse : r.knn_cv.rmse;
        }
      }
    }
  }
  std::printf("| method | runs per program | time / best: geometric mean | worst | within 10%% "
              "| CV error (log2 ms, RMSE) | illegal draws per program | training s per program |\n"
              "|---|---|---|---|---|---|---|---|\n");
  for (auto& [name, t] : totals)
    std::printf("| %s | %zu | %.3f | %.3f | %zu/%zu | %s | %s | %s |\n", name.c_str(),
                t.runs / static_cast<size_t>(seeds), std::exp(t.log_geo / seeds), t.worst, t.within,
                t.shapes, t.train_s > 0 ? std::to_string(t.rmse / seeds).substr(0, 5).c_str() : "-",
                t.train_s > 0 ? std::to_string(t.illegal / static_cast<size_t>(seeds)).c_str()
                              : "-",
                t.train_s > 0 ? std::to_string(t.train_s / seeds).substr(0, 4).c_str() : "-");
  return 0;
}
