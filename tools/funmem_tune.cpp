// funmem-tune: tunes the thresholds of a program's multi-versioned CUDA code over data
// sets (docs/tuning.md). Lowers and builds the program as funmem-cuda does
// (the CPU emulation here, nvcc when a GPU is present), reads its tuning forest, runs
// the monotonic autotuner (tune/tuner.h) and writes a `name=value` tuning file and a
// report. Every run goes to a log; --resume replays it. With --model, input-aware
// tuning instead (verifier/input_tuning.h): a model of run time over input shapes and
// the comprehensive parametric kernels' parameters, and a choice per shape.
#include "support/files.h"
#include "support/process.h"
#include "tools/guarded_main.h"
#include "tune/program_runner.h"
#include "tune/tuner.h"
#include "verifier/comprehensive.h"
#include "verifier/cuda_check.h"
#include "verifier/input_tuning.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

using namespace funmem;
using namespace funmem::tune;
namespace fs = std::filesystem;

namespace {

/// The kernels a run launched (`time: kernel NAME (...)` lines), comma-separated.
std::string launched(const std::string& err) {
  std::string out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    char name[256];
    if (std::sscanf(line.c_str(), "time: kernel %255s", name) == 1)
      out += (out.empty() ? "" : ",") + std::string(name);
  }
  return out.empty() ? "-" : out;
}

/// The fastest of `repeats` runs with the given harness flags (infinity if one fails).
double best_time(const ProgramRunner& r, size_t d, const std::string& flags, int repeats,
                 std::string* kernels) {
  double best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < repeats; ++k) {
    std::string err;
    int rc = r.run_raw(d, "--time " + flags, &err);
    double ms = 0;
    auto at = err.find("time: run ");
    if (rc != 0 || at == std::string::npos ||
        std::sscanf(err.c_str() + at, "time: run %lf ms", &ms) != 1)
      return std::numeric_limits<double>::infinity();
    best = std::min(best, ms);
    if (kernels) *kernels = launched(err);
  }
  return best;
}

std::string ms_text(double ms) {
  if (ms == std::numeric_limits<double>::infinity()) return "failed";
  char b[32];
  std::snprintf(b, sizeof b, "%.2f ms", ms);
  return b;
}

/// The program's tuning forest, as `EXE --tuning-tree` prints it.
bool tuning_tree_of(const std::string& exe, std::string& text) {
  return run_command(shell_quote(exe) + " --tuning-tree", &text) == 0;
}

/// --compare: the tuned program against every version forced, on each data set.
void compare_versions(const CudaCode& code, ProgramRunner& runner,
                      const std::vector<ProgramDataset>& sets, const std::string& output,
                      int repeats) {
  std::vector<ForcedVersion> forced = forced_versions(code);
  std::printf("\n%-24s %-28s", "data set", "tuned (kernels launched)");
  for (const ForcedVersion& v : forced)
    std::printf(" %12s", v.name.c_str());
  std::printf("  verdict\n");
  for (size_t d = 0; d < sets.size(); ++d) {
    std::string kernels;
    double tuned = best_time(runner, d, "--tuning " + shell_quote(output), repeats, &kernels);
    std::printf("%-24s %-28s", sets[d].name.c_str(),
                (ms_text(tuned) + " (" + kernels + ")").c_str());
    double best = std::numeric_limits<double>::infinity();
    std::string best_name;
    for (const ForcedVersion& v : forced) {
      double t = best_time(runner, d, v.args, repeats, nullptr);
      std::printf(" %12s", ms_text(t).c_str());
      if (t < best) {
        best = t;
        best_name = v.name;
      }
    }
    bool picks = tuned <= best * 1.1;
    std::printf("  %s\n", picks ? ("as fast as the fastest version (" + best_name + ")").c_str()
                                : ("SLOWER than the " + best_name + " version").c_str());
  }
}

/// Writes the generated code under WORK and builds it with nvcc (on a GPU machine) or
/// as the CPU emulation; `exe` receives the binary. Returns an error, or "".
std::string build_program(const CudaCode& code, const std::string& file, const std::string& work,
                          std::string& exe) {
  std::string cu = (fs::path(work) / (fs::path(file).filename().string() + ".cu")).string();
  if (std::string e = write_cuda(cu, code); !e.empty()) return e;
  const bool gpu = gpu_present() && !nvcc_path().empty();
  exe = cu + (gpu ? ".gpu" : ".emu");
  std::string e = gpu ? build_nvcc(cu, exe) : build_emulation(cu, exe);
  if (!e.empty()) return e;
  std::fprintf(stderr, "funmem-tune: built %s (%s)\n", exe.c_str(),
               gpu ? "nvcc, GPU" : "g++, CPU emulation");
  return "";
}

/// The data sets: files as they are, sizes written under WORK as harness inputs.
bool dataset_files(const Lowered& lowered, const std::vector<std::string>& specs,
                   const std::string& work, std::vector<ProgramDataset>& sets) {
  for (size_t k = 0; k < specs.size(); ++k) {
    const std::string& s = specs[k];
    if (fs::is_regular_file(s)) {
      sets.push_back({fs::path(s).filename().string(), s});
      continue;
    }
    std::string error;
    auto input = harness_random_input(lowered, s, &error);
    if (!input) {
      std::cerr << "--datasets '" << s << "': error: " << error << "\n";
      return false;
    }
    std::string path = (fs::path(work) / ("dataset-" + std::to_string(k) + ".in")).string();
    std::ofstream(path) << *input;
    sets.push_back({s, path});
  }
  return true;
}

/// --model: input-aware tuning of FILE's comprehensive parametric kernels.
int model_main(const Lowered& lowered, const std::string& file, const std::string& work,
               std::string exe, const std::string& output, InputTuningOptions& o, bool quiet) {
  std::string error;
  auto cpk = comprehensive_kernels(lowered, {}, &error);
  if (!cpk) {
    std::cerr << "funmem-tune: error: " << error << "\n";
    return 1;
  }
  if (exe.empty()) {
    if (std::string e = build_program(cpk->code, file, work, exe); !e.empty()) {
      std::cerr << "funmem-tune: error: " << e << "\n";
      return 1;
    }
  }
  int runs = 0;
  if (!quiet)
    o.progress = [&](const std::string& what) {
      std::fprintf(stderr, "funmem-tune: [measurement %d] %s\n", ++runs, what.c_str());
    };
  std::printf("input-aware tuning of %s: shapes %s, %zu for training, %zu held out, %zu "
              "configuration(s) measured per training shape, %d timing(s) each\n",
              file.c_str(), o.ranges.c_str(), o.train_shapes, o.held_out_shapes,
              o.isaac.samples_per_shape, o.repeats);
  InputTuningResult r = input_tuning(lowered, *cpk, exe, o);
  std::printf("%s", r.report.c_str());
  if (!r.ok) {
    std::cerr << "funmem-tune: error: " << r.error << "\n";
    return 1;
  }
  std::ofstream(output) << r.tuning_file;
  std::printf("runs: %d executed, %d replayed from %s\nwrote %s\n", r.executed, r.replayed,
              o.log.c_str(), output.c_str());
  return 0;
}

/// FILE read and lowered; nullopt with the exit status set (2: unreadable, 1: not lowered).
std::optional<Lowered> read_and_lower(const std::string& file, bool no_sc, int& status) {
  bool ok = false;
  std::string text = read_file(file, &ok);
  if (!ok) {
    std::cerr << file << ": error: " << unreadable(file) << "\n";
    status = 2;
    return std::nullopt;
  }
  LowerOptions lo;
  lo.short_circuit = !no_sc;
  std::string error;
  auto lowered = lower_to_cuda(file, text, lo, &error);
  if (!lowered) {
    std::cerr << error << "\n";
    status = 1;
  }
  return lowered;
}

/// The options of --model.
void add_model_options(CLI::App& app, InputTuningOptions& mo, bool& model, bool& grid,
                       bool& no_evaluate) {
  mo.isaac.mlp.ensemble = 5;
  app.add_flag("--model", model,
               "input-aware tuning: learn run time over input shapes and the comprehensive "
               "kernels' parameters, write a choice per shape (docs/tuning.md)");
  app.add_option("--shapes", mo.ranges,
                 "with --model: the input shapes, sizes or LO:HI ranges (`n=64:2048 m=64:2048`)");
  app.add_option("--train", mo.train_shapes, "with --model: training shapes drawn")
      ->check(CLI::Range(1, 10000));
  app.add_option("--held-out", mo.held_out_shapes, "with --model: held-out shapes drawn")
      ->check(CLI::Range(1, 10000));
  app.add_option("--samples", mo.isaac.samples_per_shape,
                 "with --model: configurations measured per training shape")
      ->check(CLI::Range(1, 100000));
  app.add_option("--seed", mo.isaac.seed, "with --model: the seed of shapes, samples and model");
  app.add_option("--query", mo.queries, "with --model: further shapes to choose for");
  app.add_option("--epochs", mo.isaac.mlp.epochs, "with --model: the MLP's passes over the samples")
      ->check(CLI::Range(1, 100000));
  app.add_option("--ensemble", mo.isaac.mlp.ensemble,
                 "with --model: MLPs trained from as many seeds, their predictions averaged")
      ->check(CLI::Range(1, 100));
  app.add_flag("--grid-sampling", grid,
               "with --model: sample the raw grid (illegal points skipped) instead of the legal "
               "configurations");
  app.add_flag("--no-evaluate", no_evaluate,
               "with --model: no exhaustive measurement of the held-out shapes");
}

} // namespace

static int tool_main(int argc, char** argv);

int main(int argc, char** argv) {
  return funmem::guarded_main("funmem-tune", [&] { return tool_main(argc, argv); });
}

static int tool_main(int argc, char** argv) {
  CLI::App app{"funmem-tune: tune the thresholds of multi-versioned generated code over data "
               "sets (monotonic autotuner)"};
  std::string file, output, log, work, exe;
  std::vector<std::string> dataset_specs;
  TuneOptions opt;
  opt.repeats = 3;
  double timeout_s = 60;
  bool resume = false, compare = false, quiet = false, no_sc = false, model = false, grid = false,
       no_evaluate = false;
  InputTuningOptions mo;
  app.add_option("file", file, "a .fun or .funmem program")->required();
  app.add_option("--datasets", dataset_specs,
                 "data sets: harness input files, or sizes as on an `-- input:` line "
                 "(`n=2 m=1000000`; arrays are filled with seeded random values)");
  add_model_options(app, mo, model, grid, no_evaluate);
  app.add_option("-o,--output", output, "the tuning file to write (default FILE.tuning)");
  app.add_option("--log", log, "the log of runs (default FILE.tune-log)");
  app.add_flag("--resume", resume, "replay the runs of an existing log instead of repeating them");
  app.add_option("--repeats", opt.repeats, "timings per configuration (the minimum is taken)")
      ->check(CLI::Range(1, 100));
  app.add_option("--timeout", timeout_s, "seconds before a run counts as timed out (slowest)")
      ->check(CLI::Range(0.1, 86400.0));
  app.add_option("--epsilon", opt.epsilon,
                 "a version must be faster by this fraction to be chosen (noise margin)")
      ->check(CLI::Range(0.0, 0.5));
  app.add_flag("--compare", compare,
               "after tuning, time the tuned program and every forced version on each data set");
  app.add_flag("--quiet", quiet, "no progress lines");
  app.add_flag("--no-sc", no_sc, "leave short-circuiting out of the pipeline");
  app.add_option("--work-dir", work,
                 "where the .cu file, binary and inputs go (default FILE.tune/)");
  app.add_option("--exe", exe,
                 "tune this already built generated program instead of building FILE");
  CLI11_PARSE(app, argc, argv);
  if (output.empty()) output = file + ".tuning";
  if (log.empty()) log = file + (model ? ".isaac-log" : ".tune-log");
  if (model == mo.ranges.empty() || (!model && dataset_specs.empty())) {
    std::cerr << "funmem-tune: error: "
              << (model == mo.ranges.empty() ? "--shapes goes with --model, and --model needs it"
                                             : "--datasets is required (or --model with --shapes)")
              << "\n";
    return 2;
  }
  fs::create_directories(work = work.empty() ? file + ".tune" : work);

  int status = 0;
  auto lowered = read_and_lower(file, no_sc, status);
  if (!lowered) return status;
  std::string error;
  if (model) {
    if (!resume) fs::remove(log);
    mo.repeats = opt.repeats;
    mo.timeout_s = timeout_s;
    mo.evaluate = !no_evaluate;
    mo.isaac.sampling = grid ? tune::Sampling::Grid : tune::Sampling::Legal;
    mo.work = work;
    mo.log = log;
    return model_main(*lowered, file, work, exe, output, mo, quiet);
  }
  if (exe.empty()) {
    if (std::string e = build_program(lowered->code, file, work, exe); !e.empty()) {
      std::cerr << "funmem-tune: error: " << e << "\n";
      return 1;
    }
  }

  std::vector<ProgramDataset> sets;
  if (!dataset_files(*lowered, dataset_specs, work, sets)) return 2;

  // The tuning forest, as the program reports it.
  std::string tree_text;
  if (!tuning_tree_of(exe, tree_text)) {
    std::cerr << "funmem-tune: error: " << exe << " --tuning-tree failed\n";
    return 1;
  }
  Forest forest = parse_tuning_tree(tree_text, &error);
  if (!error.empty()) {
    std::cerr << "funmem-tune: error: " << error << "\n";
    return 1;
  }
  if (forest.thresholds.empty()) {
    std::printf("%s: no multi-versioned kernel nest: nothing to tune\n", file.c_str());
    std::ofstream(output) << "# funmem-tune: " << file << " has no thresholds\n";
    return 0;
  }
  if (!resume) fs::remove(log);
  std::unique_ptr<ProgramRunner> runner;
  try {
    runner = std::make_unique<ProgramRunner>(exe, sets, forest, timeout_s, log);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  if (!quiet)
    opt.progress = [&](const std::string& what) {
      std::fprintf(stderr, "funmem-tune: [%d run(s), %d replayed] %s\n", runner->executed,
                   runner->replayed, what.c_str());
    };
  std::printf("tuning %s: %zu threshold(s), %zu data set(s), %d timing(s) per configuration\n",
              file.c_str(), forest.thresholds.size(), sets.size(), opt.repeats);
  TuneResult res = tune_program(forest, *runner, opt);
  std::ofstream(output) << tuning_file(forest, res);
  std::printf("%s", tuning_report(forest, res).c_str());
  std::printf("runs: %d executed, %d replayed from %s\n", runner->executed, runner->replayed,
              log.c_str());
  std::printf("wrote %s\n", output.c_str());
  std::printf("%s", tuning_file(forest, res).c_str());

  status = 0;
  bool any_ok = false;
  for (const DatasetReport& d : res.datasets)
    any_ok = any_ok || d.best_ms < std::numeric_limits<double>::infinity();
  if (!any_ok) {
    std::cerr << "funmem-tune: error: every run failed\n";
    status = 1;
  }
  if (compare) compare_versions(lowered->code, *runner, sets, output, opt.repeats);
  return status;
}
