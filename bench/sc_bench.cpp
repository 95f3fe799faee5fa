// funmem-bench-sc FILE...: short-circuiting over corpus programs. For each file (FUN
// files go through fun-to-funmem first): the time of the analysis (best of --repeat
// runs), the points attempted, proved and refused (with the properties), and on the
// file's first data set the elements copied, copies elided and peak heap memory of the
// heap semantics before and after the pass. Prints a Markdown table and the totals.
#include "analysis/pipeline.h"
#include "analysis/short_circuit.h"
#include "analysis/solver.h"
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/typecheck.h"
#include "support/files.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

using namespace funmem;

int main(int argc, char** argv) {
  CLI::App app{"funmem-bench-sc: short-circuiting analysis time and its run-time effect"};
  std::vector<std::string> files;
  int repeat = 3;
  app.add_option("files", files, "FUN / FUNMEM files")->required();
  app.add_option("--repeat", repeat, "analysis runs per file (the fastest is reported)");
  CLI11_PARSE(app, argc, argv);
  std::cout << "| program | points | proved | refused (property) | analysis ms | elements "
               "copied before -> after | peak bytes before -> after |\n"
               "|---|---|---|---|---|---|---|\n";
  double total_ms = 0;
  int total_points = 0, total_proved = 0;
  for (const std::string& f : files) {
    ParseResult r = parse_program(read_file(f), lang_of_path(f));
    if (!r.program || !typecheck(*r.program).empty()) {
      std::cerr << f << ": skipped (does not parse or type-check)\n";
      continue;
    }
    Program mem = *r.program;
    if (mem.lang == Lang::Fun) {
      PipelineOptions popt;
      popt.stages = {Stage::FunToFunmem};
      PipelineResult pr = run_pipeline(mem, popt);
      if (!pr.ok()) {
        std::cerr << f << ": skipped (" << pr.error << ")\n";
        continue;
      }
      mem = pr.last_program(mem);
    }
    double best = 1e300;
    ScReport rep;
    Program out;
    for (int k = 0; k < std::max(1, repeat); ++k) {
      Solver::clear_shared_cache();
      out = short_circuit(mem, &rep);
      best = std::min(best, rep.ms);
    }
    std::map<std::string, int> why;
    for (const ScAttempt& a : rep.attempts)
      if (!a.proved) ++why[a.property];
    std::string refused = std::to_string(rep.refused());
    for (const auto& [p, n] : why)
      refused += (refused.size() == std::to_string(rep.refused()).size() ? " (" : ", ") +
                 std::to_string(n) + "x " + p;
    if (!why.empty()) refused += ")";
    std::string copies = "-", peak = "-";
    if (!r.program->inputs.empty()) {
      try {
        Inputs inputs = make_inputs(r.program->def, &r.program->inputs[0], 1);
        RunResult b = run_program(mem, Semantics::Heap, inputs);
        RunResult a = run_program(out, Semantics::Heap, inputs);
        if (!b.error && !a.error) {
          copies =
              std::to_string(b.stats.copied_elems) + " -> " + std::to_string(a.stats.copied_elems);
          peak = std::to_string(b.stats.peak_bytes) + " -> " + std::to_string(a.stats.peak_bytes);
        }
      } catch (const RunError&) {
      }
    }
    int points = static_cast<int>(rep.attempts.size());
    std::cout << "| " << std::filesystem::path(f).filename().string() << " | " << points << " | "
              << rep.proved_points() + rep.scalar_maps() << " | " << refused << " | "
              << static_cast<int>(best + 0.5) << " | " << copies << " | " << peak << " |\n";
    total_ms += best;
    total_points += points;
    total_proved += rep.proved_points() + rep.scalar_maps();
  }
  std::cout << "\n"
            << files.size() << " files, " << total_points << " points, " << total_proved
            << " proved, analysis " << static_cast<int>(total_ms + 0.5) << " ms in total\n";
  return 0;
}
