// funmem-opt [--pass P1,P2,...] [--report] FILE: parse and type-check a FUN / FUNMEM
// file, run the passes in order (each result is type-checked again), and print the
// program in canonical form (printing the printed form changes nothing).
// Passes: fun-to-funmem, sc, merge, hoist, expand, expand-cpu, to-imp. --json prints one
// JSON object instead: the program text and, per pass, its report (sc: every attempt).
#include "analysis/pipeline.h"
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"
#include "support/files.h"
#include "tools/guarded_main.h"
#include "verifier/sc_json.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

namespace {

/// Peak memory of the heap semantics of `q` on the first data set of `src` (for
/// --report); empty when it does not run.
std::string peak_bytes(const funmem::Program& q, const funmem::Program& src) {
  if (q.lang != funmem::Lang::FunMem || src.inputs.empty()) return "";
  try {
    funmem::Inputs in = funmem::make_inputs(src.def, &src.inputs[0], 0);
    funmem::RunResult h = funmem::run_program(q, funmem::Semantics::Heap, in);
    if (h.error) return "";
    return std::to_string(h.stats.peak_bytes);
  } catch (const funmem::RunError&) {
    return "";
  }
}

std::string broken_names() {
  std::string names;
  for (const std::string& b : funmem::broken_variant_names())
    names += (names.empty() ? "" : ", ") + b;
  return names;
}

} // namespace

static int tool_main(int argc, char** argv);

int main(int argc, char** argv) {
  return funmem::guarded_main("funmem-opt", [&] { return tool_main(argc, argv); });
}

static int tool_main(int argc, char** argv) {
  CLI::App app{"funmem-opt: print (and later transform) FUN / FUNMEM programs"};
  std::string file;
  bool no_verify = false, report = false, as_json = false;
  std::vector<std::string> passes;
  app.add_option("file", file, "FUN (.fun) or FUNMEM (.funmem) file")->required();
  app.add_option("--pass", passes,
                 "passes to run in order: fun-to-funmem, sc, merge, hoist, expand (GPU "
                 "layout), expand-cpu, to-imp (last)")
      ->delimiter(',');
  app.add_flag("--report", report, "print what each pass did (to stderr)");
  app.add_flag("--json", as_json,
               "print one JSON object: the resulting program and each pass's report");
  app.add_flag("--no-verify", no_verify, "print even when the program does not type-check");
  std::vector<std::string> broken;
  app.add_option("--broken", broken,
                 "switch on a deliberately broken variant of a pass (as funmem-fuzz --broken), "
                 "to replay a counterexample: " +
                     broken_names());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  bool readable = false;
  const std::string text = funmem::read_file(file, &readable);
  if (!readable) {
    std::cerr << file << ": error: " << funmem::unreadable(file) << "\n";
    return 2;
  }
  funmem::ParseResult r = funmem::parse_program(text, funmem::lang_of_path(file));
  if (r.error) {
    std::cerr << funmem::format_diagnostic(*r.error, file, text);
    return 1;
  }
  if (!no_verify) {
    auto errs = funmem::typecheck(*r.program);
    for (const auto& d : errs)
      std::cerr << funmem::format_diagnostic(d, file, text);
    if (!errs.empty()) return 1;
  }
  funmem::Program p = *r.program;
  auto peak = [&](const funmem::Program& q) { return peak_bytes(q, *r.program); };
  funmem::PipelineOptions popt;
  popt.input_typed = !no_verify;
  for (const std::string& b : broken)
    if (!funmem::set_broken_variant(popt.pass, b)) {
      std::cerr << "funmem-opt: error: unknown broken variant '" << b << "'\n";
      return 2;
    }
  for (const std::string& pass : passes) {
    auto s = funmem::stage_from_name(pass);
    if (!s) {
      std::cerr << file << ": error: unknown pass '" << pass
                << "' (available: " << funmem::stage_names_text() << ")\n";
      return 2;
    }
    popt.stages.push_back(*s);
  }
  for (size_t k = 0; k + 1 < popt.stages.size(); ++k)
    if (popt.stages[k] == funmem::Stage::ToImp) {
      std::cerr << "funmem-opt: error: to-imp must be the last pass (its output is IMP)\n";
      return 2;
    }
  funmem::PipelineResult res = funmem::run_pipeline(p, popt);
  nlohmann::json jpasses = nlohmann::json::array();
  for (const funmem::StageResult& st : res.stages) {
    if (as_json) {
      nlohmann::json jp = {{"pass", funmem::stage_name(st.stage)}};
      if (st.imp) {
        jp["kernels"] = st.imp_report.kernels;
        jp["copies"] = st.imp_report.copies;
        jp["elided"] = st.imp_report.elided;
      } else {
        jp["report"] = st.report;
      }
      if (st.sc) jp["sc"] = funmem::sc_json(*st.sc);
      jpasses.push_back(jp);
    } else if (report) {
      std::cerr << st.report << "\n";
      std::string before = peak(p), after = st.program ? peak(*st.program) : "";
      if (!after.empty())
        std::cerr << "  peak memory on the input at line " << r.program->inputs[0].pos.line << ": "
                  << (before.empty() ? "-" : before) << " bytes before, " << after
                  << " bytes after (16 per element)\n";
    }
    if (st.program) p = *st.program;
  }
  if (!res.ok()) {
    std::cerr << file << ": error: " << res.error << "\n";
    return 1;
  }
  if (!res.stages.empty() && res.stages.back().imp) {
    const funmem::imp::Program& imp = *res.stages.back().imp;
    if (as_json) {
      std::cout << nlohmann::json{{"file", file},
                                  {"passes", jpasses},
                                  {"language", "IMP"},
                                  {"program", funmem::imp::print(imp)}}
                       .dump()
                << "\n";
    } else {
      std::cout << funmem::imp::print(imp);
    }
    return 0;
  }
  if (as_json) {
    std::cout << nlohmann::json{{"file", file},
                                {"passes", jpasses},
                                {"language", p.lang == funmem::Lang::Fun ? "FUN" : "FUNMEM"},
                                {"program", funmem::print_program(p)}}
                     .dump()
              << "\n";
    return 0;
  }
  std::cout << funmem::print_program(p);
  return 0;
}
