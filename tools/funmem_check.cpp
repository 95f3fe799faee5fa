// funmem-check FILE...: parse, type-check, run every data set under the reference
// interpreters and compare with the file's `-- expect:` lines.
// Exit 0 when every expectation holds, 1 when one fails, 2 on usage errors.
#include "ir/parser.h"
#include "support/files.h"
#include "tools/guarded_main.h"
#include "verifier/check.h"
#include "verifier/sc_json.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

using namespace funmem;
using nlohmann::json;

namespace {

json pos_json(Pos p) {
  return {{"line", p.line}, {"column", p.col}};
}

json error_json(const std::optional<RunError>& e) {
  if (!e) return nullptr;
  return {{"kind", e->kind}, {"line", e->pos.line}, {"column", e->pos.col}, {"message", e->what()}};
}

json sc_check_json(const CheckReport& r) {
  if (!r.sc) return nullptr;
  json j = sc_json(*r.sc);
  json imp = json::array();
  for (const auto& i : r.sc_impact)
    imp.push_back({{"data_set", i.data_set},
                   {"elements_copied_before", i.copied_before},
                   {"elements_copied_after", i.copied_after},
                   {"elements_elided_after", i.elided_after},
                   {"peak_bytes_before", i.peak_before},
                   {"peak_bytes_after", i.peak_after}});
  j["impact"] = imp;
  return j;
}

json report_json(const CheckReport& r) {
  json j;
  j["file"] = r.file;
  j["language"] = r.lang == Lang::Fun ? "FUN" : "FUNMEM";
  j["parse"] = r.parsed ? "ok" : "error";
  j["type"] = !r.parsed ? "skipped" : r.typed ? "ok" : "error";
  j["diagnostics"] = json::array();
  for (const auto& d : r.diagnostics)
    j["diagnostics"].push_back(
        {{"kind", d.kind}, {"line", d.pos.line}, {"column", d.pos.col}, {"message", d.message}});
  j["runs"] = json::array();
  for (const DataSetRun& d : r.runs) {
    json races = json::array();
    for (const Race& x : d.races)
      races.push_back({{"kernel", pos_json(x.kernel)},
                       {"writer", x.writer},
                       {"other", x.other},
                       {"other_writes", x.other_writes},
                       {"block", x.block},
                       {"offset", x.offset},
                       {"message", x.to_string()}});
    j["runs"].push_back({{"data_set", d.name},
                         {"inputs", d.inputs},
                         {"input_error", error_json(d.input_error)},
                         {"value_error", error_json(d.value_error)},
                         {"heap_error", error_json(d.heap_error)},
                         {"heap_ran", d.heap_ran},
                         {"races", races},
                         {"mismatch", d.mismatch ? json(*d.mismatch) : json(nullptr)},
                         {"valid", d.valid()},
                         {"heap_stats",
                          {{"reads", d.heap_stats.reads},
                           {"elements_copied", d.heap_stats.copied_elems},
                           {"elements_elided", d.heap_stats.elided_elems},
                           {"writes", d.heap_stats.writes},
                           {"copies", d.heap_stats.copies},
                           {"elided_copies", d.heap_stats.elided},
                           {"allocations", d.heap_stats.allocs},
                           {"peak_bytes", d.heap_stats.peak_bytes}}}});
  }
  j["expectations"] = json::array();
  for (const auto& e : r.expectations)
    j["expectations"].push_back(
        {{"expect", e.expect.word + (e.expect.arg.empty() ? "" : " " + e.expect.arg)},
         {"line", e.expect.pos.line},
         {"status", expect_status_name(e.status)},
         {"detail", e.detail}});
  j["sc"] = sc_check_json(r);
  j["seconds"] = {{"static", r.static_seconds}, {"runs", r.run_seconds}};
  j["ok"] = r.ok();
  return j;
}

/// SARIF 2.1.0: one result per failed expectation, diagnostic, race and run-time error.
json sarif(const std::vector<std::pair<CheckReport, std::string>>& reports) {
  json results = json::array();
  auto add = [&](const std::string& rule, const std::string& level, const std::string& file, Pos p,
                 const std::string& msg) {
    json region = {{"startLine", std::max(p.line, 1)}, {"startColumn", std::max(p.col, 1)}};
    json phys = {{"artifactLocation", {{"uri", file}}}, {"region", region}};
    json loc = {{"physicalLocation", phys}};
    results.push_back({{"ruleId", rule},
                       {"level", level},
                       {"message", {{"text", msg}}},
                       {"locations", json::array({loc})}});
  };
  for (const auto& [r, text] : reports) {
    for (const auto& d : r.diagnostics)
      add("funmem/" + d.kind, "error", r.file, d.pos, d.message);
    for (const auto& d : r.runs) {
      for (const Race& x : d.races)
        add("funmem/race", "error", r.file, x.kernel, d.name + ": " + x.to_string());
      for (const auto* e : {&d.value_error, &d.heap_error})
        if (*e)
          add("funmem/" + (*e)->kind, "warning", r.file, (*e)->pos, d.name + ": " + (*e)->what());
    }
    for (const auto& e : r.expectations)
      if (e.status == ExpectStatus::Fails)
        add("funmem/expectation", "error", r.file, e.expect.pos,
            "expect " + e.expect.word + (e.expect.arg.empty() ? "" : " " + e.expect.arg) +
                " fails: " + e.detail);
  }
  json rules = json::array();
  for (const char* id : {"parse", "type", "race", "bounds", "overflow", "division", "assume",
                         "elemtype", "size", "resource", "expectation"})
    rules.push_back({{"id", std::string("funmem/") + id}});
  return {{"version", "2.1.0"},
          {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"runs", json::array({{{"tool",
                                  {{"driver",
                                    {{"name", "funmem-check"},
                                     {"informationUri", "https://example.invalid/funmem"},
                                     {"rules", rules}}}}},
                                 {"results", results}}})}};
}

} // namespace

static int tool_main(int argc, char** argv);

int main(int argc, char** argv) {
  return funmem::guarded_main("funmem-check", [&] { return tool_main(argc, argv); });
}

static int tool_main(int argc, char** argv) {
  CLI::App app{"funmem-check: check FUN / FUNMEM programs against their -- expect: lines"};
  std::vector<std::string> files, inputs;
  bool as_json = false, as_sarif = false;
  CheckOptions opt;
  app.add_option("files", files, "FUN (.fun) or FUNMEM (.funmem) files")->required();
  app.add_flag("--json", as_json, "print one JSON report per file (JSON Lines)");
  app.add_flag("--sarif", as_sarif, "print one SARIF 2.1.0 log for all files");
  app.add_option("--input", inputs,
                 "a data set, e.g. 'n=4 xs=[1,2,3,4]' (repeatable; replaces "
                 "the files' -- input: lines)")
      ->allow_extra_args(false);
  app.add_flag("--audit-sc", opt.limits.audit,
               "audit every heap run cell by cell: a read of a cell written after the array "
               "was complete, or never written, is an error (docs/interpreters.md)");
  app.add_option("--seed", opt.seed, "seed of the random values of array inputs not given");
  app.add_option("--max-memory", opt.limits.max_memory_bytes,
                 "bytes of live memory blocks per run (16 per element)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-steps", opt.limits.max_steps,
                 "statements, iterations and copied elements per run")
      ->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    Diagnostic d;
    auto set = parse_input_set(inputs[k], &d);
    if (!set) {
      std::cerr << "<input " << k + 1 << ">:1:" << d.pos.col << ": error: " << d.message << "\n";
      return 2;
    }
    opt.inputs.push_back(*set);
  }
  bool all_ok = true;
  std::vector<std::pair<CheckReport, std::string>> reports;
  for (const std::string& f : files) {
    bool readable = false;
    const std::string text = read_file(f, &readable);
    if (!readable) {
      std::cerr << f << ": error: " << unreadable(f) << "\n";
      return 2;
    }
    CheckReport r = check_source(f, text, opt);
    all_ok = all_ok && r.ok();
    if (as_sarif) {
      reports.emplace_back(std::move(r), text);
      continue;
    }
    if (as_json) {
      std::cout << report_json(r).dump() << "\n";
      continue;
    }
    for (const auto& d : r.diagnostics)
      std::cout << format_diagnostic(d, f, text);
    for (const DataSetRun& d : r.runs) {
      for (const Race& x : d.races)
        std::cout << f << ":" << x.kernel.line << ":" << x.kernel.col << ": race: " << d.name
                  << ": " << x.to_string() << "\n";
      for (const auto* e : {&d.value_error, &d.heap_error})
        if (*e)
          std::cout << f << ":" << (*e)->pos.line << ":" << (*e)->pos.col << ": error: " << d.name
                    << " (" << (e == &d.value_error ? "value" : "heap")
                    << " semantics): " << (*e)->what() << " [" << (*e)->kind << "]\n";
      if (d.input_error)
        std::cout << f << ":" << d.input_error->pos.line << ":" << d.input_error->pos.col
                  << ": error: " << d.name << ": " << d.input_error->what() << "\n";
    }
    std::cout << f << ": " << (r.lang == Lang::Fun ? "FUN" : "FUNMEM") << ", parse "
              << (r.parsed ? "ok" : "error") << ", types "
              << (!r.parsed ? "not checked"
                  : r.typed ? "ok"
                            : "error (" + std::to_string(r.diagnostics.size()) + ")")
              << "\n";
    for (const DataSetRun& d : r.runs) {
      std::cout << "  " << d.name << ": " << d.inputs << "\n    ";
      if (d.input_error)
        std::cout << "not run: " << d.input_error->what();
      else if (!d.heap_ran)
        std::cout << "value semantics " << (d.value_error ? "error" : "ok");
      else
        std::cout << "value semantics " << (d.value_error ? "error" : "ok") << ", "
                  << d.memory_semantics() << " " << (d.heap_error ? "error" : "ok") << " ("
                  << d.heap_stats.reads << " reads, " << d.heap_stats.writes << " writes, "
                  << d.heap_stats.copies << " copies, " << d.heap_stats.elided << " elided, peak "
                  << d.heap_stats.peak_bytes << " bytes), "
                  << (d.races.empty() ? "no race"
                                      : std::to_string(d.races.size()) + " racy kernel(s)")
                  << (d.mismatch                      ? ", results differ at " + *d.mismatch
                      : d.value_error || d.heap_error ? ""
                                                      : ", results agree");
      std::cout << "\n";
    }
    if (r.sc) {
      std::cout << "  sc: " << r.sc->proved_points() << " point(s) short-circuited, "
                << r.sc->scalar_maps() << " in-place scalar map(s), " << r.sc->refused()
                << " refused (funmem-opt --pass sc --report shows the proofs)\n";
      for (const auto& i : r.sc_impact)
        std::cout << "    " << i.data_set << ": elements copied " << i.copied_before << " -> "
                  << i.copied_after << " (" << i.elided_after << " elided), peak memory "
                  << i.peak_before << " -> " << i.peak_after << " bytes\n";
    }
    for (const auto& e : r.expectations) {
      std::cout << "  expect " << e.expect.word << (e.expect.arg.empty() ? "" : " " + e.expect.arg)
                << ": " << expect_status_name(e.status);
      if (!e.detail.empty()) std::cout << " (" << e.detail << ")";
      std::cout << "\n";
    }
    for (const std::string& m : r.stage_mismatches)
      std::cout << "  stages differ: " << m << "\n";
    std::cout << f << ": " << (r.ok() ? "OK" : "FAILED") << "\n";
  }
  if (as_sarif) std::cout << sarif(reports).dump(2) << "\n";
  return all_ok ? 0 : 1;
}
