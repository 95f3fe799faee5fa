// funmem-bench-cuda: the benchmark shapes of thesis 6.8 (NW, LUD, Hotspot, LBM, NN,
// OptionPricing; corpus/nw and corpus/sc) lowered to CUDA with and without
// short-circuiting, built, and run at realistic sizes; the best of --repeat runs of
// each. On the CPU emulation here; with --gpu, the nvcc builds on a GPU
// (scripts/bench-cuda-gpu). Prints a Markdown table: time without and with sc, the
// speed-up, peak device memory, and the IMP copy nests left and elided.
#include "ir/parser.h"
#include "support/files.h"
#include "support/process.h"
#include "verifier/cuda_check.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace funmem;
namespace fs = std::filesystem;

namespace {

struct Shape {
  const char* name;
  const char* file;   // under corpus/
  const char* sizes;  // an `-- input:` line
  const char* thesis; // the measured impact of sc in the thesis (GPU)
};

const Shape kShapes[] = {
    {"NW", "nw/nw-full.funmem", "q=128 b=32", "1.17-1.31x"},
    {"LUD", "sc/lud.fun", "q=64 b=32", "1.25-1.39x"},
    {"Hotspot", "sc/hotspot.fun", "steps=10 n=1024 m=1024", "1.78-2.05x"},
    {"LBM", "sc/lbm.fun", "steps=10 cells=100000 q=19", "1.09-1.60x"},
    {"NN", "sc/nn.fun", "k=10 npts=1000000 qx=3 qy=4", "1.05-1.55x"},
    {"OptionPricing", "sc/optionpricing.fun", "paths=100000 steps=64", "1.03-1.21x"},
};

struct Measure {
  double ms = -1;
  long long peak = 0;
  std::string error;
};

Measure run_best(const std::string& exe, const std::string& input, int repeat) {
  Measure best;
  for (int k = 0; k < repeat; ++k) {
    std::string err;
    int rc = run_command(shell_quote(fs::absolute(exe).string()) + " " + shell_quote(input) +
                             " --time --no-output",
                         nullptr, &err);
    if (rc != 0) {
      best.error = err.empty() ? "exit status " + std::to_string(rc) : err;
      return best;
    }
    double ms = 0;
    long long alloc = 0, peak = 0;
    auto at = err.find("time: run ");
    if (at == std::string::npos ||
        std::sscanf(err.c_str() + at, "time: run %lf ms, %lld bytes allocated, peak %lld", &ms,
                    &alloc, &peak) != 3) {
      best.error = "no timing in: " + err;
      return best;
    }
    if (best.ms < 0 || ms < best.ms) best.ms = ms;
    best.peak = peak;
  }
  return best;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"funmem-bench-cuda: generated CUDA with and without short-circuiting"};
  int repeat = 3;
  bool gpu = false, sc_only = false;
  std::string only, work = "bench-cuda";
  app.add_option("--repeat", repeat, "runs per variant (the fastest is reported)");
  app.add_flag("--gpu", gpu, "build with nvcc and run on the GPU instead of the emulation");
  app.add_flag("--sc-only", sc_only, "run only the version with short-circuiting");
  app.add_option("--only", only, "one shape (NW, LUD, Hotspot, LBM, NN, OptionPricing)");
  app.add_option("--work-dir", work, "where the .cu files, binaries and inputs go");
  std::string root = FUNMEM_SOURCE_DIR;
  app.add_option("--root", root, "the funmem source tree (for corpus/)");
  CLI11_PARSE(app, argc, argv);
  fs::create_directories(work);
  std::printf("| shape | sizes | time without sc | time with sc | speed-up | peak bytes without "
              "-> with | IMP copy nests without -> with (elided) | thesis (GPU) |\n"
              "|---|---|---|---|---|---|---|---|\n");
  int status = 0;
  for (const Shape& s : kShapes) {
    if (!only.empty() && only != s.name) continue;
    fs::path file = fs::path(root) / "corpus" / s.file;
    std::string text = read_file(file);
    Measure m[2];
    Lowered low[2];
    std::string failure;
    for (int v = sc_only ? 1 : 0; v < 2 && failure.empty(); ++v) {
      LowerOptions lo;
      lo.short_circuit = v == 1;
      std::string err;
      auto l = lower_to_cuda(file.string(), text, lo, &err);
      if (!l) {
        failure = err;
        break;
      }
      low[v] = *l;
      std::string base = (fs::path(work) / (std::string(s.name) + (v ? ".sc" : ".nosc"))).string();
      std::string cu = base + ".cu";
      std::string e = write_cuda(cu, l->code);
      std::string exe = base + (gpu ? ".gpu" : ".emu");
      if (e.empty()) e = gpu ? build_nvcc(cu, exe) : build_emulation(cu, exe);
      auto input = e.empty() ? harness_random_input(*l, s.sizes, &e) : std::nullopt;
      if (!input) {
        failure = e;
        break;
      }
      std::ofstream(base + ".in") << *input;
      m[v] = run_best(exe, base + ".in", repeat);
      if (!m[v].error.empty()) failure = m[v].error;
    }
    if (!failure.empty()) {
      std::printf("| %s | %s | failed: %s |\n", s.name, s.sizes, failure.c_str());
      status = 1;
      continue;
    }
    if (sc_only) {
      std::printf("| %s | %s | not run | %.1f ms | | %lld | %d (%d) | %s |\n", s.name, s.sizes,
                  m[1].ms, m[1].peak, low[1].imp_stats.copies, low[1].imp_stats.elided, s.thesis);
      std::fflush(stdout);
      continue;
    }
    std::printf("| %s | %s | %.1f ms | %.1f ms | %.2fx | %lld -> %lld | %d -> %d (%d) | %s |\n",
                s.name, s.sizes, m[0].ms, m[1].ms, m[0].ms / m[1].ms, m[0].peak, m[1].peak,
                low[0].imp_stats.copies, low[1].imp_stats.copies, low[1].imp_stats.elided,
                s.thesis);
    std::fflush(stdout);
  }
  return status;
}
