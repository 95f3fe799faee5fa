// funmem-cuda: lowers a FUN / FUNMEM program through the memory pipeline to IMP and
// CUDA C++, builds it (g++ against the CPU emulation; nvcc when present) and runs it on
// every data set against the reference interpreter (verifier/cuda_check.h).
// Exit: 0 when everything asked for worked and agreed, 1 on a disagreement or a failed
// build, 2 on usage, parse, type or lowering errors.
#include "interp/interp.h"
#include "ir/parser.h"
#include "support/files.h"
#include "tools/guarded_main.h"
#include "verifier/comprehensive.h"
#include "verifier/cuda_check.h"
#include "verifier/resources.h"
#ifdef FUNMEM_HAVE_FRONTEND
#include "verifier/validate.h"
#endif

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace funmem;

namespace {

struct Built {
  std::string emu, gpu; // executables ("" when not built)
};

/// --comprehensive: the case discussions (replacing the lowered code by the one with
/// dispatchers) and whether to print them as JSON.
struct ComprehensiveRequest {
  ComprehensiveOptions opt;
  bool json = false;
  Comprehensive result;
};

/// Lowers, writes and builds one variant; prints what it did. False on failure.
bool lower_and_build(const std::string& file, const std::string& text, const LowerOptions& lo,
                     const std::string& cu, bool build, const std::string& arch, bool nvcc,
                     Lowered& l, Built& b, int& status, ComprehensiveRequest* cpk = nullptr) {
  std::string err;
  auto lowered = lower_to_cuda(file, text, lo, &err);
  if (lowered && cpk) {
    cpk->opt.arch = arch;
    if (auto c = comprehensive_kernels(*lowered, cpk->opt, &err)) {
      lowered->code = c->code;
      cpk->result = std::move(*c);
    } else {
      lowered.reset();
    }
  }
  if (!lowered) {
    std::cerr << (err.rfind(file, 0) == 0 ? err : file + ": error: " + err) << "\n";
    status = 2;
    return false;
  }
  l = *lowered;
  if (std::string e = write_cuda(cu, l.code); !e.empty()) {
    std::cerr << "funmem-cuda: error: " << e << "\n";
    status = 2;
    return false;
  }
  std::string stages;
  for (const std::string& s : l.stages)
    stages += (stages.empty() ? "" : ", ") + s;
  std::printf("%s: lowered (%s): %zu CUDA kernel(s), %d IMP copy nest(s), %d elided -> %s\n",
              file.c_str(), stages.c_str(), l.code.kernels.size(), l.imp_stats.copies,
              l.imp_stats.elided, cu.c_str());
  if (!build) return true;
  b.emu = cu + ".emu";
  if (std::string e = build_emulation(cu, b.emu); !e.empty()) {
    std::cerr << "funmem-cuda: error: " << e << "\n";
    status = 1;
    return false;
  }
  std::printf("built %s (g++, CPU emulation)\n", b.emu.c_str());
  if (!nvcc) return true;
  if (nvcc_path().empty()) {
    std::printf("nvcc not found under /usr/local/cuda: no GPU build\n");
    return true;
  }
  b.gpu = cu + ".gpu";
  if (std::string e = build_nvcc(cu, b.gpu, arch); !e.empty()) {
    std::cerr << "funmem-cuda: error: " << e << "\n";
    status = 1;
    return false;
  }
  std::printf("built %s (nvcc -O3 --fmad=false -arch=%s)\n", b.gpu.c_str(), arch.c_str());
  return true;
}

/// Prints ptxas's resource report for every kernel of the written file.
int print_resources(const std::string& cu, const std::string& arch, int maxrregcount) {
  std::vector<std::string> flags;
  if (maxrregcount > 0) flags.push_back("-maxrregcount=" + std::to_string(maxrregcount));
  std::string err;
  auto ks = ptxas_resources(cu, arch, flags, &err);
  if (!ks) {
    std::cerr << "funmem-cuda: error: " << err << "\n";
    return 2;
  }
  std::printf("resources (ptxas, %s%s):\n", arch.c_str(),
              maxrregcount > 0 ? (", -maxrregcount=" + std::to_string(maxrregcount)).c_str() : "");
  std::printf("  %-24s %9s %8s %12s %12s %11s\n", "kernel", "registers", "barriers", "shared bytes",
              "stack bytes", "spill bytes");
  for (const KernelResources& k : *ks)
    std::printf("  %-24s %9d %8d %12lld %12lld %11lld\n", k.kernel.c_str(), k.registers, k.barriers,
                static_cast<long long>(k.shared_bytes), static_cast<long long>(k.stack_bytes),
                static_cast<long long>(k.spill_store_bytes) +
                    static_cast<long long>(k.spill_load_bytes));
  return 0;
}

/// Runs the GPU build when a GPU is present, the emulation otherwise.
std::vector<CudaRun> run(const Lowered& l, const Built& b, bool time, const char** on,
                         const std::string& args = "") {
  bool gpu = !b.gpu.empty() && gpu_present();
  *on = gpu ? "GPU" : "emulation";
  return run_and_compare(l, gpu ? b.gpu : b.emu, time, 0, "", args);
}

/// Elements copied by the heap semantics of the lowered program on each data set.
std::vector<int64_t> copied_elements(const Lowered& l) {
  std::vector<int64_t> out;
  size_t count = std::max<size_t>(l.source.inputs.size(), 1);
  for (size_t k = 0; k < count; ++k) {
    try {
      Inputs in =
          make_inputs(l.source.def, l.source.inputs.empty() ? nullptr : &l.source.inputs[k], k);
      for (const Binding& b : l.source.def.params)
        if (b.type && b.type->kind == Type::Kind::Mem) in[b.name.s].is_mem = true;
      RunResult r = run_program(l.funmem, Semantics::Heap, in);
      out.push_back(r.error ? -1 : r.stats.copied_elems);
    } catch (const RunError&) {
      out.push_back(-1);
    }
  }
  return out;
}

/// --compare-opt: the program built and run with and without short-circuiting; both
/// times and the bytes copied per data set.
int compare_sc(const std::string& file, const std::string& text, const LowerOptions& lo,
               const std::string& out, const std::string& arch, bool nvcc,
               const std::vector<InputSet>& inputs) {
  int status = 0;
  struct Variant {
    const char* name;
    bool sc;
    std::string cu;
    Lowered l;
    Built b;
    std::vector<CudaRun> runs;
    std::vector<int64_t> copied;
  };
  std::string base =
      out.size() > 3 && out.substr(out.size() - 3) == ".cu" ? out.substr(0, out.size() - 3) : out;
  std::vector<Variant> vs = {{"with sc", true, base + ".cu", {}, {}, {}, {}},
                             {"without sc", false, base + ".nosc.cu", {}, {}, {}, {}}};
  const char* on = "emulation";
  for (Variant& v : vs) {
    LowerOptions o = lo;
    o.short_circuit = v.sc;
    if (!lower_and_build(file, text, o, v.cu, true, arch, nvcc, v.l, v.b, status)) return status;
    if (!inputs.empty()) v.l.source.inputs = inputs;
    v.runs = run(v.l, v.b, true, &on);
    v.copied = copied_elements(v.l);
  }
  // Bytes copied: the elements the heap semantics copies (memcpy of kernel results,
  // updates, concat), 8 bytes each in the generated code's cells.
  std::printf("\n%-22s %12s %12s %14s %14s\n", "data set", "time sc", "time no-sc", "bytes copied",
              "bytes copied");
  std::printf("%-22s %12s %12s %14s %14s\n", "", "(program)", "(program)", "with sc", "without sc");
  for (size_t k = 0; k < vs[0].runs.size(); ++k) {
    const CudaRun &a = vs[0].runs[k], &b = vs[1].runs[k];
    std::printf("%-22s %10.2fms %10.2fms %14lld %14lld   (%s; %s)\n", a.name.c_str(), a.program_ms,
                b.program_ms, 8LL * static_cast<long long>(vs[0].copied[k]),
                8LL * static_cast<long long>(vs[1].copied[k]), on,
                a.ok && b.ok ? "both agree with the interpreter" : "DISAGREEMENT");
    if (!a.ok || !b.ok) status = 1;
    std::printf("%s", a.time_report.c_str());
    std::printf("%s", b.time_report.c_str());
  }
  return status;
}

/// --comprehensive: prints the case discussions; with `runs`, adds a run of every data
/// set per leaf, with the parameters and limits that make the dispatcher choose it.
int report_comprehensive(const ComprehensiveRequest& c, const Lowered& l, const Built& b, bool time,
                         const char** on, std::vector<CudaRun>* runs) {
  int status = 0;
  if (c.json)
    std::printf("%s\n", comprehensive_json(c.result).dump(2).c_str());
  else
    std::printf("%s", comprehensive_text(c.result).c_str());
  for (const KernelCases& k : c.result.kernels)
    if (!k.cases.all_consistent || k.cases.coverage != SatResult::Unsat) {
      std::fprintf(stderr, "funmem-cuda: error: %s: the case discussion is %s\n", k.kernel.c_str(),
                   !k.cases.all_consistent ? "not consistent (a leaf without a model)"
                                           : "not proved to cover the domain");
      status = 1;
    }
  if (!runs) return status;
  for (const KernelCases& k : c.result.kernels)
    for (size_t j = 0; j < k.leaves.size(); ++j)
      for (CudaRun r : run(l, b, true, on, leaf_args(k, j))) {
        // The dispatcher must have launched the leaf's variant and nothing else of the
        // kernel (the --time report names them); a data set may not reach the kernel.
        const std::string launched = launched_functions(r.time_report, k.kernel);
        if (launched.empty())
          r.detail += "; the data set does not reach " + k.kernel;
        else if (r.ok && launched != k.leaves[j].function) {
          r.ok = false;
          r.detail = "the dispatcher launched " + launched + ", not " + k.leaves[j].function;
        }
        r.name += " (" + k.kernel + " leaf " + std::to_string(j + 1) + ": " + leaf_args(k, j) + ")";
        if (!time) r.time_report.clear();
        runs->push_back(r);
      }
  return status;
}

/// --input texts as data sets (named `--input K`); false after printing an error.
bool parse_inputs(const std::vector<std::string>& texts, std::vector<InputSet>& inputs) {
  for (const std::string& t : texts) {
    Diagnostic d;
    auto set = parse_input_set(t, &d);
    if (!set) {
      std::cerr << "--input '" << t << "':" << d.pos.col << ": error: " << d.message << "\n";
      return false;
    }
    set->pos = Pos{};
    inputs.push_back(*set);
  }
  return true;
}

/// Translation validation: every generated kernel race-free, every store where its
/// FUNMEM index function says (verifier/validate.h). 0, 1 (failed) or 2 (unavailable).
int run_validation(const Lowered& l, const std::string& out, bool asked, bool verbose) {
#ifdef FUNMEM_HAVE_FRONTEND
  (void)asked;
  Validation v = validate_cuda(l.code, l.imp_stats, out);
  std::printf("translation validation: %s\n%s", v.ok() ? "passed" : "FAILED",
              validation_report(v, verbose).c_str());
  return v.ok() ? 0 : 1;
#else
  (void)l, (void)out, (void)verbose;
  if (!asked) return 0;
  std::cerr << "funmem-cuda: error: --validate needs the Clang front end, which this "
               "build does not have\n";
  return 2;
#endif
}

/// --tuning-tree: the thresholds of the generated code, as a forest.
void print_tuning_tree(const CudaCode& code, const std::string& file) {
  if (code.thresholds.empty()) std::printf("tuning forest: empty (no multi-versioned nest)\n");
  for (const CudaThreshold& t : code.thresholds) {
    std::printf("threshold %s (default %lld) at %s:%d:%d\n", t.name.c_str(),
                static_cast<long long>(t.default_value), file.c_str(), t.pos.line, t.pos.col);
    std::printf("  %s if %s >= %s\n", t.version.c_str(), t.exploits.c_str(), t.name.c_str());
    if (t.parent >= 0)
      std::printf("  reached when %s fails\n",
                  code.thresholds[static_cast<size_t>(t.parent)].name.c_str());
    if (!t.otherwise.empty()) std::printf("  otherwise %s\n", t.otherwise.c_str());
  }
}

} // namespace

static int tool_main(int argc, char** argv);

int main(int argc, char** argv) {
  return funmem::guarded_main("funmem-cuda", [&] { return tool_main(argc, argv); });
}

static int tool_main(int argc, char** argv) {
  CLI::App app{"funmem-cuda: lower a verified program to CUDA, build it, run it against the "
               "reference interpreter"};
  std::string file, out, checks = "on", arch = "sm_80";
  LowerOptions lo;
  bool build = false, do_run = false, time = false, compare_opt = false, no_sc = false;
  bool no_nvcc = false, single_version = false, tuning_tree = false;
  bool validate_flag = false, no_validate = false, verbose = false;
  std::string tuning;
  bool resources = false;
  int maxrregcount = 0;
  ComprehensiveRequest cpk;
  bool comprehensive = false;
  app.add_flag("--comprehensive", comprehensive,
               "comprehensive parametric kernels: print each kernel's case discussion, emit its "
               "leaves and a dispatcher; with --run, run every leaf (docs/comprehensive.md)");
  app.add_flag("--json", cpk.json, "with --comprehensive: the case discussions as JSON");
  app.add_option("file", file, "a .fun or .funmem program")->required();
  app.add_option("-o,--output", out, "the .cu file to write (default FILE.cu)");
  app.add_option("--block-size", lo.cuda.block_size, "threads per block")
      ->check(CLI::Range(1, 1024));
  app.add_option("--checks", checks, "checked arithmetic, division, casts and bounds")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_flag("--no-sc", no_sc, "leave short-circuiting out of the pipeline");
  app.add_flag("--build", build, "compile with g++ (CPU emulation) and with nvcc when present");
  app.add_option("--arch", arch, "nvcc's -arch (default sm_80)");
  app.add_flag("--no-nvcc", no_nvcc, "build the CPU emulation only");
  std::vector<std::string> input_texts;
  app.add_option("--input", input_texts,
                 "a data set, as on an `-- input:` line (replaces the file's data sets)");
  app.add_flag("--run", do_run,
               "build, run on every data set (GPU if present, else the emulation) and compare "
               "with the interpreter");
  app.add_flag("--time", time, "print the time of each kernel and of the whole run");
  app.add_flag("--compare-opt", compare_opt,
               "build and run with and without short-circuiting; print both times and the "
               "elements copied");
  app.add_flag("--single-version", single_version,
               "one version per kernel nest (no tuning tree, no thresholds)");
  app.add_flag("--tuning-tree", tuning_tree, "print the tuning forest of the generated code");
  app.add_option("--tuning", tuning, "with --run: the tuning file the program reads");
  app.add_flag("--validate", validate_flag,
               "translation validation of the generated kernels (the default when built with "
               "the Clang front end)");
  app.add_flag("--no-validate", no_validate, "skip translation validation");
  app.add_flag("-v,--verbose", verbose, "print every validated store");
  app.add_flag("--resources", resources,
               "print each kernel's registers, shared memory and spills as ptxas reports them "
               "(needs nvcc, not a GPU)");
  app.add_option("--maxrregcount", maxrregcount, "with --resources: nvcc's register cap")
      ->check(CLI::Range(1, 255));
  CLI11_PARSE(app, argc, argv);
  lo.cuda.checks = checks == "on";
  lo.cuda.versions = !single_version;
  lo.short_circuit = !no_sc;
  if (out.empty()) out = file + ".cu";
#ifdef FUNMEM_HAVE_FRONTEND
  const bool validate = !no_validate;
#else
  const bool validate = validate_flag && !no_validate;
#endif
  bool ok = false;
  std::string text = read_file(file, &ok);
  if (!ok) {
    std::cerr << file << ": error: " << unreadable(file) << "\n";
    return 2;
  }
  int status = 0;
  std::vector<InputSet> inputs;
  if (!parse_inputs(input_texts, inputs)) return 2;

  if (compare_opt) return compare_sc(file, text, lo, out, arch, !no_nvcc, inputs);

  Lowered l;
  Built b;
  if (!lower_and_build(file, text, lo, out, build || do_run, arch, !no_nvcc, l, b, status,
                       comprehensive ? &cpk : nullptr))
    return status;
  if (validate)
    if (int rc = run_validation(l, out, validate_flag, verbose); rc != 0) {
      if (rc == 2) return rc;
      status = rc;
    }
  if (tuning_tree) print_tuning_tree(l.code, file);
  if (comprehensive && !do_run)
    status = std::max(status, report_comprehensive(cpk, l, b, time, nullptr, nullptr));
  if (resources)
    if (int rc = print_resources(out, arch, maxrregcount); rc != 0) return rc;
  if (!do_run) return status;
  const char* on = "emulation";
  if (!inputs.empty()) l.source.inputs = inputs;
  // The default (or given) thresholds, then every version of every nest forced.
  std::vector<CudaRun> runs =
      run(l, b, time, &on, tuning.empty() ? "" : "--tuning " + shell_quote(tuning));
  for (const ForcedVersion& v : forced_versions(l.code))
    for (CudaRun r : run(l, b, time, &on, v.args)) {
      r.name += " (" + v.name + " version)";
      runs.push_back(r);
    }
  if (comprehensive) status = std::max(status, report_comprehensive(cpk, l, b, time, &on, &runs));
  for (const CudaRun& r : runs) {
    std::printf("%s (%s): %s: %s (%.1f ms)\n", r.name.c_str(), on, r.ok ? "ok" : "MISMATCH",
                r.detail.c_str(), r.run_ms);
    if (time) std::printf("%s", r.time_report.c_str());
    if (!r.ok) status = 1;
  }
  return status;
}
