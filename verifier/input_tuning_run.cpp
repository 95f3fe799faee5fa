// Input-aware tuning of a generated program: the runs, the models and the evaluation
// (see input_tuning.h).
#include "support/files.h"
#include "support/process.h"
#include "tune/program_runner.h"
#include "tune/tuner.h"
#include "verifier/input_tuning.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>

namespace funmem {

namespace fs = std::filesystem;
using tune::ConfigSpace;
using tune::Shape;

namespace {

constexpr double kInfMs = std::numeric_limits<double>::infinity();

std::string fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

/// The emulation's runs use one OpenMP thread: with two on this 2-core machine, a run
/// of 1.5 ms takes 1.5 to 14 ms from one run to the next; with one, within 10%.
std::string emulation_env(const std::string& exe) {
  return exe.size() >= 4 && exe.compare(exe.size() - 4, 4, ".emu") == 0 ? "OMP_NUM_THREADS=1" : "";
}

/// The shapes' data sets, written as harness inputs under `work`.
std::optional<std::vector<tune::ProgramDataset>>
write_shapes(const Lowered& l, const std::vector<Shape>& shapes, const std::string& work,
             const std::string& tag, std::string* error) {
  std::vector<tune::ProgramDataset> sets;
  for (size_t k = 0; k < shapes.size(); ++k) {
    auto input = harness_random_input(l, shapes[k].spec, error);
    if (!input) {
      *error = "shape '" + shapes[k].spec + "': " + *error;
      return std::nullopt;
    }
    const std::string path = (fs::path(work) / (tag + "-" + std::to_string(k) + ".in")).string();
    std::ofstream(path) << *input;
    sets.push_back({shapes[k].spec, path});
  }
  return sets;
}

/// The monotonic tuner's thresholds, tuned on the training shapes' data sets with the
/// program's default parameters: the tuning file, and the runs it took.
std::optional<std::string> monotonic_file(const std::string& exe,
                                          const std::vector<tune::ProgramDataset>& sets,
                                          const InputTuningOptions& o, int* runs) {
  std::string tree;
  if (run_command(shell_quote(exe) + " --tuning-tree", &tree) != 0) return std::nullopt;
  std::string error;
  tune::Forest forest = tune::parse_tuning_tree(tree, &error);
  if (!error.empty() || forest.thresholds.empty()) return std::nullopt;
  tune::ProgramRunner runner(exe, sets, forest, o.timeout_s, "", emulation_env(exe));
  tune::TuneOptions to;
  to.repeats = o.repeats;
  tune::TuneResult res = tune::tune_program(forest, runner, to);
  *runs = runner.executed;
  const std::string path = (fs::path(o.work) / "monotonic.tuning").string();
  std::ofstream(path) << tune::tuning_file(forest, res);
  return path;
}

std::string space_text(const ConfigSpace& sp) {
  return "space: " + std::to_string(sp.configs.size()) + " configuration(s) from a grid of " +
         std::to_string(sp.grid) + " point(s): " + std::to_string(sp.illegal) +
         " illegal (no leaf holds), " + std::to_string(sp.duplicates) +
         " running what another point runs\n";
}

/// A method measured outside the exhaustive table (the defaults, the monotonic tuner):
/// its time per held-out shape against the exhaustive best.
tune::MethodScore measured_method(const std::string& name, size_t runs, const std::string& flags,
                                  const std::vector<size_t>& ids, const tune::HeldOutEvaluation& e,
                                  const std::function<double(size_t, const std::string&)>& time) {
  tune::MethodScore m{name, runs, {}};
  for (size_t s = 0; s < ids.size(); ++s)
    m.ratio.push_back(time(ids[s], flags) / e.best_ms[s]);
  return m;
}

} // namespace

InputTuningResult input_tuning(const Lowered& lowered, const Comprehensive& cpk,
                               const std::string& exe, const InputTuningOptions& o) {
  InputTuningResult out;
  // R is a knob on a GPU only: the emulation ignores register caps (__maxnreg__).
  TuningSpaceOptions so;
  so.registers = emulation_env(exe).empty();
  const ConfigSpace space = tuning_space(cpk, so);
  out.report = space_text(space);
  if (space.configs.empty()) {
    out.error = "no legal configuration: the program has no comprehensive parametric kernel";
    return out;
  }
  std::string error;
  auto train = tune::sample_shapes(o.ranges, o.train_shapes, o.isaac.seed, &error);
  auto held = train ? tune::sample_shapes(o.ranges, o.held_out_shapes, o.isaac.seed + 1, &error)
                    : std::nullopt;
  std::vector<Shape> queries;
  for (const std::string& q : o.queries) {
    auto s = tune::parse_shape(q, &error);
    if (!s) {
      out.error = "--query '" + q + "': " + error;
      return out;
    }
    queries.push_back(*s);
  }
  if (!held) {
    out.error = "--shapes: " + error;
    return out;
  }
  std::unique_ptr<tune::FlagRunner> runner;
  try {
    runner = std::make_unique<tune::FlagRunner>(exe, o.timeout_s, o.log, emulation_env(exe));
  } catch (const std::exception& e) {
    out.error = e.what();
    return out;
  }
  auto train_sets = write_shapes(lowered, *train, o.work, "train", &error);
  auto held_sets = train_sets ? write_shapes(lowered, *held, o.work, "held", &error) : std::nullopt;
  if (!held_sets) {
    out.error = error;
    return out;
  }
  auto add = [&](const std::vector<tune::ProgramDataset>& sets) {
    std::vector<size_t> ids;
    ids.reserve(sets.size());
    for (const tune::ProgramDataset& d : sets)
      ids.push_back(runner->add_dataset(d));
    return ids;
  };
  const std::vector<size_t> train_ids = add(*train_sets), held_ids = add(*held_sets);
  // The least of `repeats` timings; infinity when a run fails.
  auto time = [&](size_t d, const std::string& flags) {
    double best = kInfMs;
    for (int k = 0; k < o.repeats; ++k) {
      tune::RunResult r = runner->run(d, flags);
      if (r.status != tune::RunResult::Status::Ok) return kInfMs;
      best = std::min(best, r.ms);
    }
    return best;
  };
  auto on = [&](const std::vector<size_t>& ids) -> tune::Measure {
    return [&, ids](size_t s, size_t c) { return time(ids[s], space.configs[c].flags); };
  };
  tune::IsaacOptions io = o.isaac;
  io.progress = o.progress;
  tune::IsaacResult r = tune::isaac_train(space, *train, on(train_ids), io);
  out.report += "training: " + std::to_string(train->size()) + " shape(s), " +
                std::to_string(r.runs) + " measurement(s) of " + std::to_string(o.repeats) +
                " run(s), " + std::to_string(r.failed) + " failed\n";
  if (!r.mlp) {
    out.error = "every training run failed";
    return out;
  }
  out.report += "cross-validation by shape (" + std::to_string(r.mlp_cv.folds) +
                " folds), error of log2 ms: " + r.mlp->name() + " RMSE " + fixed(r.mlp_cv.rmse, 3) +
                ", MAE " + fixed(r.mlp_cv.mae, 3) + "; " + r.knn->name() + " RMSE " +
                fixed(r.knn_cv.rmse, 3) + ", MAE " + fixed(r.knn_cv.mae, 3) + "\n";
  tune::ChoiceCache cache(*r.mlp, space);
  std::vector<Shape> chosen = *held;
  chosen.insert(chosen.end(), queries.begin(), queries.end());
  for (const Shape& s : chosen)
    out.report += "  " + s.spec + ": " + space.configs[cache(s)].label + "\n";
  out.tuning_file = tune::shape_tuning_file(cache, space, chosen, r.mlp->name());
  if (o.evaluate) {
    tune::HeldOutEvaluation e =
        tune::evaluate_held_out(r, space, *held, on(held_ids), static_cast<size_t>(o.repeats));
    e.methods.push_back(measured_method("program defaults", 0, "", held_ids, e, time));
    int mono_runs = 0;
    if (auto f = monotonic_file(exe, *train_sets, o, &mono_runs))
      e.methods.push_back(measured_method("monotonic tuner's thresholds",
                                          static_cast<size_t>(mono_runs),
                                          "--tuning " + shell_quote(*f), held_ids, e, time));
    out.report += "held-out shapes: " + std::to_string(held->size()) + "\n" +
                  tune::evaluation_report(e, held->size());
  }
  out.executed = runner->executed;
  out.replayed = runner->replayed;
  out.ok = true;
  return out;
}

} // namespace funmem
