// Differential testing of generated CUDA code (see cuda_check.h).
#include "verifier/cuda_check.h"

#include "analysis/pipeline.h"
#include "ir/parser.h"
#include "ir/typecheck.h"
#include "ir/unmem.h"
#include "support/files.h"
#include "support/process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

namespace funmem {

namespace fs = std::filesystem;

namespace {

std::string value_text(const Scalar& s) {
  switch (s.t) {
  case ScalarType::F64:
  case ScalarType::F32: {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", s.f);
    return buf;
  }
  case ScalarType::Bool:
    return s.i ? "true" : "false";
  default:
    return std::to_string(s.i);
  }
}

/// The element types of a def's results as the harness prints them (memory results of
/// a FUNMEM def are not results of its IMP program).
std::vector<ScalarType> result_types(const Def& d) {
  std::vector<ScalarType> ts;
  for (const Type& t : d.rets)
    if (t.kind != Type::Kind::Mem) ts.push_back(t.elem);
  return ts;
}

} // namespace

std::optional<Lowered> lower_to_cuda(const std::string& path, const std::string& text,
                                     const LowerOptions& opt, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<Lowered> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  Lang lang = lang_of_path(path);
  ParseResult pr = parse_program(text, lang);
  if (!pr.program)
    return fail(pr.error ? format_diagnostic(*pr.error, path, text) : path + ": error: no program");
  std::vector<Diagnostic> ds = typecheck(*pr.program);
  if (!ds.empty()) return fail(format_diagnostic(ds.front(), path, text));
  Lowered l;
  l.source = *pr.program;
  PipelineOptions popt;
  popt.stages = standard_stages(lang, opt.short_circuit);
  PipelineResult res = run_pipeline(l.source, popt);
  if (!res.ok()) return fail(res.error);
  for (const StageResult& s : res.stages)
    l.stages.push_back(stage_name(s.stage));
  l.funmem = res.last_program(l.source);
  l.imp = *res.stages.back().imp;
  l.imp_stats = res.stages.back().imp_report;
  CudaOptions co = opt.cuda;
  co.source_file = path;
  std::string why;
  l.cuda = co;
  l.result_types = result_types(l.funmem.def);
  auto code = imp_to_cuda(l.imp, l.result_types, co, &why);
  if (!code) return fail("codegen: " + why);
  l.code = *code;
  return l;
}

std::string write_cuda(const std::string& cu_path, const CudaCode& code) {
  fs::path p(cu_path);
  std::ofstream out(p);
  out << code.text;
  if (!out) return "cannot write " + cu_path;
  // Several programs lowered into one directory at once share the header: it is
  // replaced only when it differs, by renaming a complete private copy over it, so a
  // compiler reading it never sees a truncated file.
  fs::path rt =
      p.parent_path().empty() ? fs::path("funmem_cuda_rt.h") : p.parent_path() / "funmem_cuda_rt.h";
  const std::string header = cuda_runtime_header();
  bool exists = false;
  if (read_file(rt.string(), &exists) == header && exists) return "";
  static std::atomic<int> counter{0};
  fs::path tmp = rt;
  tmp += "." + std::to_string(getpid()) + "." + std::to_string(counter++) + ".tmp";
  {
    std::ofstream t(tmp, std::ios::binary);
    t << header;
    if (!t) return "cannot write " + tmp.string();
  }
  std::error_code ec;
  // A header precompiled from the old text would be used in place of the new one.
  fs::path gch = rt;
  gch += ".gch";
  fs::remove(gch, ec);
  fs::rename(tmp, rt, ec);
  if (ec) return "cannot write " + rt.string() + ": " + ec.message();
  return "";
}

std::string nvcc_path() {
  const char* p = "/usr/local/cuda/bin/nvcc";
  return fs::exists(p) ? p : "";
}

bool gpu_present() {
  std::string out;
  return run_command("nvidia-smi -L", &out, nullptr) == 0 && out.find("GPU") != std::string::npos;
}

namespace {

/// The flags of every emulation build; a precompiled header is used only when it was
/// built with the same ones.
std::string emulation_flags(EmuOpt opt) {
  return std::string("g++ -std=c++20 ") + (opt == EmuOpt::Fast ? "-O2" : "-O0") +
         " -fopenmp -ffp-contract=off";
}

/// Precompiles DIR/funmem_cuda_rt.h (support/process.h). The header's `#pragma once`
/// draws a warning when it is compiled on its own.
void precompile_runtime_header(const std::string& inc, EmuOpt opt, const std::string& defines) {
  static std::mutex mu; // one build per header in this process
  std::lock_guard<std::mutex> lock(mu);
  precompile_header((fs::path(inc) / "funmem_cuda_rt.h").string(), emulation_flags(opt) + defines);
}

} // namespace

std::string build_emulation(const std::string& cu_path, const std::string& exe_path,
                            bool precompile_header, EmuOpt opt) {
  fs::path dir = fs::path(cu_path).parent_path();
  std::string inc = dir.empty() ? "." : dir.string();
  if (precompile_header) precompile_runtime_header(inc, opt, "");
  std::string out, err;
  int rc = run_command(emulation_flags(opt) + " -I " + shell_quote(inc) + " -x c++ " +
                           shell_quote(cu_path) + " -o " + shell_quote(exe_path),
                       &out, &err);
  return rc == 0 ? "" : "g++ failed (status " + std::to_string(rc) + "):\n" + out + err;
}

std::string emulation_batch_args(size_t k) {
  return "--fm-program " + std::to_string(k);
}

std::string build_emulation_batch(const std::vector<std::string>& cu_paths,
                                  const std::string& batch_path, const std::string& exe_path,
                                  EmuOpt opt) {
  // As build_nvcc_batch; the runtime's tables of the file that runs are pointers
  // (FM_BATCH), which the dispatching `main` sets before calling the file's own.
  std::string text = "#include \"funmem_cuda_rt.h\"\n#include <cstdlib>\n#include <cstring>\n";
  for (size_t k = 0; k < cu_paths.size(); ++k)
    text += "namespace funmem_batch_" + std::to_string(k) + " {\n#include \"" +
            fs::absolute(cu_paths[k]).string() + "\"\n}\n#undef FM_BLOCK\n";
  text += "int main(int argc, char** argv) {\n"
          "  std::vector<char*> args;\n"
          "  long k = -1;\n"
          "  for (int i = 0; i < argc; ++i) {\n"
          "    if (std::strcmp(argv[i], \"--fm-program\") == 0 && i + 1 < argc)\n"
          "      k = std::atol(argv[++i]);\n"
          "    else\n"
          "      args.push_back(argv[i]);\n"
          "  }\n"
          "  const int n = static_cast<int>(args.size());\n"
          "  args.push_back(nullptr);\n"
          "  switch (k) {\n";
  for (size_t k = 0; k < cu_paths.size(); ++k) {
    const std::string ns = "funmem_batch_" + std::to_string(k) + "::";
    text += "  case " + std::to_string(k) + ":\n    fm_batch_file = " + ns +
            "fm_file;\n    fm_batch_sites = " + ns +
            "fm_sites;\n    fm_batch_thresholds_info = " + ns +
            "fm_thresholds_info;\n    fm_batch_thresholds_count = " + ns +
            "fm_thresholds_count;\n    return " + ns + "main(n, args.data());\n";
  }
  text += "  }\n  std::fprintf(stderr, \"error: no program %ld in this batch\\n\", k);\n"
          "  return 2;\n}\n";
  {
    std::ofstream out(batch_path);
    out << text;
    if (!out) return "cannot write " + batch_path;
  }
  fs::path dir = fs::path(batch_path).parent_path();
  std::string inc = dir.empty() ? "." : dir.string();
  precompile_runtime_header(inc, opt, " -DFM_BATCH");
  std::string out, err;
  int rc = run_command(emulation_flags(opt) + " -DFM_BATCH -I " + shell_quote(inc) + " -x c++ " +
                           shell_quote(batch_path) + " -o " + shell_quote(exe_path),
                       &out, &err);
  return rc == 0 ? "" : "g++ failed (status " + std::to_string(rc) + "):\n" + out + err;
}

std::string build_nvcc(const std::string& cu_path, const std::string& exe_path,
                       const std::string& arch, bool device_only) {
  std::string nvcc = nvcc_path();
  if (nvcc.empty()) return "nvcc not found under /usr/local/cuda";
  fs::path dir = fs::path(cu_path).parent_path();
  std::string inc = dir.empty() ? "." : dir.string();
  std::string out, err;
  int rc = run_command(nvcc + " -std=c++20 -O3 --fmad=false -arch=" + arch + " -I " +
                           shell_quote(inc) + " -x cu " + shell_quote(cu_path) +
                           (device_only ? " --cubin" : "") + " -o " + shell_quote(exe_path),
                       &out, &err);
  return rc == 0 ? "" : "nvcc failed (status " + std::to_string(rc) + "):\n" + out + err;
}

std::string build_nvcc_batch(const std::vector<std::string>& cu_paths,
                             const std::string& batch_path, const std::string& arch) {
  // Every generated file includes only the runtime header, whose `#pragma once` makes
  // the includes inside the namespaces empty, and defines FM_BLOCK unless defined.
  std::string text = "#include \"funmem_cuda_rt.h\"\n";
  for (size_t k = 0; k < cu_paths.size(); ++k)
    text += "namespace funmem_batch_" + std::to_string(k) + " {\n#include \"" +
            fs::absolute(cu_paths[k]).string() + "\"\n}\n#undef FM_BLOCK\n";
  std::ofstream out(batch_path);
  out << text;
  if (!out) return "cannot write " + batch_path;
  out.close();
  return build_nvcc(batch_path, batch_path + ".cubin", arch, true);
}

std::string harness_input(const Inputs& in) {
  std::string s = "# funmem-cuda data\n";
  for (const auto& [name, d] : in) {
    if (!d.is_array) {
      s +=
          "scalar " + name + " " + scalar_type_name(d.scalar.t) + " " + value_text(d.scalar) + "\n";
      continue;
    }
    s += "mem " + name + " " + std::to_string(d.elems.size());
    for (const Scalar& e : d.elems)
      s += std::string(" ") + scalar_type_name(e.t) + " " + value_text(e);
    s += "\n";
  }
  return s;
}

std::optional<std::string> harness_random_input(const Lowered& l, const std::string& sizes,
                                                std::string* error) {
  Diagnostic d;
  auto set = parse_input_set(sizes, &d);
  if (!set) {
    *error = "bad data set '" + sizes + "': " + d.message;
    return std::nullopt;
  }
  try {
    Inputs in = imp_inputs(l.funmem.def, make_inputs(l.source.def, &*set, 1));
    std::string text;
    for (const auto& [name, v] : in) {
      if (v.is_array)
        text += "mem " + name + " " + std::to_string(v.elems.size()) + " random " +
                scalar_type_name(v.elems.empty() ? ScalarType::I64 : v.elems[0].t) + " 7\n";
      else
        text += harness_input(Inputs{{name, v}}).substr(harness_input({}).size());
    }
    return text;
  } catch (const RunError& e) {
    *error = e.what();
    return std::nullopt;
  }
}

std::optional<std::vector<Data>> parse_harness_output(const std::string& text, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<std::vector<Data>> {
    if (error) *error = why;
    return std::nullopt;
  };
  auto type_of = [](const std::string& w, ScalarType& t) {
    for (ScalarType c :
         {ScalarType::I64, ScalarType::I32, ScalarType::F32, ScalarType::F64, ScalarType::Bool})
      if (w == scalar_type_name(c)) {
        t = c;
        return true;
      }
    return false;
  };
  auto value = [](ScalarType t, const std::string& w, Scalar& out) {
    char* end = nullptr;
    if (t == ScalarType::Bool) {
      if (w != "true" && w != "false") return false;
      out = Scalar::of_int(t, w == "true");
      return true;
    }
    if (t == ScalarType::F32 || t == ScalarType::F64) {
      out = Scalar::of_float(t, std::strtod(w.c_str(), &end));
    } else {
      out = Scalar::of_int(t, std::strtoll(w.c_str(), &end, 10));
    }
    return end && *end == '\0' && !w.empty();
  };
  std::vector<Data> results;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    std::string name, tw;
    Data d;
    ScalarType t;
    if (word == "scalar") {
      std::string v;
      if (!(in >> name >> tw >> v) || !type_of(tw, t) || !value(t, v, d.scalar))
        return fail("bad scalar result");
    } else if (word == "mem") {
      long long count = 0;
      if (!(in >> name >> count >> tw) || count < 0 || !type_of(tw, t))
        return fail("bad mem result header");
      d.is_array = true;
      d.elem = t;
      d.shape = {count};
      for (long long k = 0; k < count; ++k) {
        std::string v;
        Scalar s;
        if (!(in >> v) || !value(t, v, s)) return fail("bad element in result '" + name + "'");
        d.elems.push_back(s);
      }
    } else {
      return fail("unexpected '" + word + "' in the output");
    }
    results.push_back(std::move(d));
  }
  return results;
}

std::vector<ForcedVersion> forced_versions(const CudaCode& code) {
  if (code.thresholds.empty()) return {};
  return {{"outer", "--threshold '*=0'"},
          {"intra", "--threshold '*=0' --threshold '*.suff_outer_par_*=inf'"},
          {"flat", "--threshold '*=inf'"}};
}

std::vector<CudaRun> run_and_compare(const Lowered& l, const std::string& exe, bool time,
                                     uint64_t seed, const std::string& work_dir,
                                     const std::string& extra_args) {
  std::vector<CudaRun> runs;
  const Program fun = l.source.lang == Lang::FunMem ? unmem(l.source) : l.source;
  const std::vector<InputSet>& sets = l.source.inputs;
  size_t count = std::max<size_t>(sets.size(), 1);
  fs::path dir = work_dir.empty() ? fs::temp_directory_path() : fs::path(work_dir);
  for (size_t k = 0; k < count; ++k) {
    CudaRun r;
    const InputSet* set = sets.empty() ? nullptr : &sets[k];
    r.name = !set                ? "random inputs"
             : set->pos.line > 0 ? "input at line " + std::to_string(set->pos.line)
                                 : "--input " + std::to_string(k + 1);
    Inputs in;
    try {
      in = make_inputs(l.source.def, set, seed + k);
    } catch (const RunError& e) {
      r.ok = true;
      r.detail = std::string("the data set does not fit the parameters (not run): ") + e.what();
      runs.push_back(r);
      continue;
    }
    Inputs value_in = in;
    for (const Binding& b : l.source.def.params)
      if (b.type && b.type->kind == Type::Kind::Mem) value_in[b.name.s].is_mem = true;
    RunResult v = run_program(fun, Semantics::Value, value_in);
    // A FUNMEM program means what its heap semantics does: where that stops with an
    // error (a negative allocation, an access outside a block), so must the generated code.
    if (l.source.lang == Lang::FunMem)
      if (RunResult h = run_program(l.source, Semantics::Heap, in); h.error) {
        // Refused while placing the parameters (a layout that leaves its block, or
        // overflows, docs/interpreters.md): no caller could make those blocks.
        const Body& body = l.source.def.body;
        const Pos start = body.stmts.empty() ? body.pos : body.stmts[0].pos;
        if (h.error->pos.line < start.line ||
            (h.error->pos.line == start.line && h.error->pos.col < start.col)) {
          r.ok = true;
          r.detail = std::string("the parameters' layouts do not fit their blocks (not run): ") +
                     h.error->what();
          runs.push_back(r);
          continue;
        }
        v.error = h.error;
      }
    static std::atomic<int> inputs_written{0};
    fs::path input = dir / ("funmem-cuda-" + std::to_string(::getpid()) + "-" +
                            std::to_string(inputs_written++) + ".in");
    try {
      std::ofstream(input) << harness_input(imp_inputs(l.funmem.def, in));
    } catch (const RunError& e) { // the source placed them, its translation cannot
      r.detail = std::string("the translation's parameters do not fit their blocks: ") + e.what();
      runs.push_back(r);
      continue;
    }
    std::string out, err;
    auto t0 = std::chrono::steady_clock::now();
    int rc =
        run_command(shell_quote(fs::absolute(exe).string()) + " " + shell_quote(input.string()) +
                        (time ? " --time" : "") + (extra_args.empty() ? "" : " " + extra_args),
                    &out, &err);
    r.run_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::error_code ec;
    fs::remove(input, ec);
    for (const std::string& line : [&] {
           std::vector<std::string> ls;
           std::istringstream s(err);
           for (std::string x; std::getline(s, x);)
             ls.push_back(x);
           return ls;
         }())
      if (line.rfind("time: ", 0) == 0) {
        r.time_report += line + "\n";
        double ms = 0;
        if (std::sscanf(line.c_str(), "time: run %lf ms", &ms) == 1) r.program_ms = ms;
      }
    if (v.error) {
      if (v.error->kind == "assume") {
        r.ok = true;
        r.detail = "an assume fails (IMP has no assume; not compared)";
      } else if (v.error->kind == "resource") {
        // The interpreter's limit, not the program's meaning (docs/tools.md).
        r.ok = true;
        r.detail = "the interpreter runs out of resources (its limits; not compared)";
      } else {
        bool same = rc == 1 && err.find("error: " + v.error->kind + ":") != std::string::npos;
        r.ok = same;
        r.detail = same ? "both fail with '" + v.error->kind + "'"
                        : "the interpreter fails with '" + v.error->kind + "' (" + v.error->what() +
                              ") but the generated program " +
                              (rc == 0 ? "succeeds" : "fails differently: " + err);
      }
      runs.push_back(r);
      continue;
    }
    if (rc != 0) {
      r.detail = "the generated program failed (status " + std::to_string(rc) + "): " + err;
      runs.push_back(r);
      continue;
    }
    std::string why;
    auto got = parse_harness_output(out, &why);
    if (!got) {
      r.detail = "unreadable output: " + why;
      runs.push_back(r);
      continue;
    }
    // A FUNMEM def's memory results are no results of its IMP program.
    std::vector<Data> expected;
    for (size_t j = 0; j < v.results.size(); ++j)
      if (j >= l.source.def.rets.size() || l.source.def.rets[j].kind != Type::Kind::Mem)
        expected.push_back(v.results[j]);
    auto mismatch = compare_imp_results(expected, *got);
    r.ok = !mismatch;
    r.detail = mismatch ? *mismatch : "results equal";
    runs.push_back(r);
  }
  return runs;
}

} // namespace funmem
