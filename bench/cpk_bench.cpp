// funmem-bench-cpk: every leaf of the comprehensive parametric kernels of a program
// (docs/comprehensive.md), built for the CPU emulation (or with --gpu by nvcc, run on
// the GPU), run at two sizes with the parameters and limits that make the dispatcher
// choose it. Prints a Markdown table per kernel: the leaf's strategies, its variant,
// constraints, ptxas's registers (and spill bytes), shared bytes at the leaf's B and
// s, and the kernel's time at each size (the fastest of --repeat runs).
#include "support/files.h"
#include "support/process.h"
#include "verifier/comprehensive.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace funmem;
namespace fs = std::filesystem;

namespace {

/// The fastest time of `function` (all its launches) over `repeat` runs; -1 on failure.
double kernel_ms(const std::string& exe, const std::string& input, const std::string& args,
                 const std::string& function, int repeat, std::string* error) {
  double best = -1;
  for (int k = 0; k < repeat; ++k) {
    std::string err;
    int rc = run_command(shell_quote(fs::absolute(exe).string()) + " " + shell_quote(input) + " " +
                             args + " --time --no-output",
                         nullptr, &err);
    const std::string key = "time: kernel " + function + " (";
    auto at = err.find(key);
    double ms = 0;
    int launches = 0;
    if (rc != 0 || at == std::string::npos ||
        std::sscanf(err.c_str() + err.find("): ", at) + 3, "%d launch(es), %lf ms", &launches,
                    &ms) != 2) {
      *error = rc != 0 ? err : "the dispatcher did not launch " + function + ": " + err;
      return -1;
    }
    if (best < 0 || ms < best) best = ms;
  }
  return best;
}

int bench(const std::string& file, const std::vector<std::string>& sizes, bool gpu,
          const std::string& work, int repeat) {
  bool ok = false;
  const std::string text = read_file(file, &ok);
  std::string err;
  auto l = ok ? lower_to_cuda(file, text, LowerOptions{}, &err) : std::nullopt;
  auto c = l ? comprehensive_kernels(*l, ComprehensiveOptions{}, &err) : std::nullopt;
  if (!c) {
    std::fprintf(stderr, "%s: %s\n", file.c_str(), ok ? err.c_str() : "cannot read");
    return 1;
  }
  l->code = c->code;
  fs::create_directories(work);
  const std::string cu = (fs::path(work) / fs::path(file).stem()).string() + ".cu";
  const std::string exe = cu + (gpu ? ".gpu" : ".emu");
  err = write_cuda(cu, l->code);
  if (err.empty()) err = gpu ? build_nvcc(cu, exe) : build_emulation(cu, exe);
  std::vector<std::string> inputs;
  for (size_t k = 0; k < sizes.size() && err.empty(); ++k) {
    auto in = harness_random_input(*l, sizes[k], &err);
    inputs.push_back(cu + ".in" + std::to_string(k));
    if (in) std::ofstream(inputs.back()) << *in;
  }
  if (!err.empty()) {
    std::fprintf(stderr, "%s: %s\n", file.c_str(), err.c_str());
    return 1;
  }
  std::printf("%s (%s), registers %s\n", file.c_str(), gpu ? "GPU" : "CPU emulation",
              c->registers_note.empty() ? "from ptxas, sm_80" : c->registers_note.c_str());
  for (const KernelCases& k : c->kernels) {
    std::printf("\n%s\n\n| leaf | strategies | variant | constraints | registers | shared bytes |",
                k.kernel.c_str());
    for (const std::string& s : sizes)
      std::printf(" %s |", s.c_str());
    std::string rule = "|---|---|---|---|---|---|";
    for (size_t s = 0; s < sizes.size(); ++s)
      rule += "---|";
    std::printf("\n%s\n", rule.c_str());
    for (size_t j = 0; j < k.leaves.size(); ++j) {
      const CaseLeaf& leaf = k.cases.leaves[j];
      const CudaLeaf& cl = k.leaves[j];
      std::string cons;
      for (const Formula& f : k.systems[j])
        cons += (cons.empty() ? "" : ", ") + f.to_string();
      auto reg = k.registers.find(cl.function);
      auto spill = k.spill_bytes.find(cl.function);
      std::string regs = "-";
      if (reg != k.registers.end()) regs = std::to_string(reg->second);
      if (spill != k.spill_bytes.end() && spill->second)
        regs += " (" + std::to_string(spill->second) + " spill bytes)";
      auto shared = leaf.counters.at("shared").eval(k.sample[j]);
      std::printf("| %zu | %s | %s%s | %s | %s | %lld at %s |", j + 1, cl.label.c_str(),
                  cl.function.c_str(), cl.granularity_one ? " (s = 1)" : "", cons.c_str(),
                  regs.c_str(), shared ? static_cast<long long>(*shared) : -1LL,
                  leaf_args(k, j).c_str());
      for (const std::string& in : inputs) {
        double ms = kernel_ms(exe, in, leaf_args(k, j), cl.function, repeat, &err);
        if (ms < 0) {
          std::fprintf(stderr, "\n%s\n", err.c_str());
          return 1;
        }
        std::printf(" %.1f ms |", ms);
      }
      std::printf("\n");
    }
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"funmem-bench-cpk: every leaf of a program's comprehensive parametric kernels"};
  std::string file, work = "build/bench-cpk";
  std::vector<std::string> sizes;
  bool gpu = false;
  int repeat = 3;
  app.add_option("file", file, "a .fun or .funmem program")->required();
  app.add_option("--size", sizes, "a data set as on an `-- input:` line (repeatable)")->required();
  app.add_flag("--gpu", gpu, "build with nvcc and run on the GPU instead of the emulation");
  app.add_option("--repeat", repeat, "runs per leaf and size (the fastest is reported)");
  app.add_option("--work-dir", work, "where the .cu file, binary and inputs go");
  CLI11_PARSE(app, argc, argv);
  return bench(file, sizes, gpu, work, repeat);
}
