// funmem-check FILE...: parse, type-check and check the expectations of FUN / FUNMEM
// files. Exit 0 when every expectation holds, 1 when one fails, 2 on usage errors.
#include "verifier/check.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  CLI::App app{"funmem-check: check FUN / FUNMEM programs against their -- expect: lines"};
  std::vector<std::string> files;
  bool json = false;
  app.add_option("files", files, "FUN (.fun) or FUNMEM (.funmem) files")->required();
  app.add_flag("--json", json, "print one JSON report per file (JSON Lines)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  bool all_ok = true;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::cerr << f << ": error: cannot read the file\n";
      return 2;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    funmem::CheckReport r = funmem::check_source(f, text);
    all_ok = all_ok && r.ok();
    if (json) {
      nlohmann::json j;
      j["file"] = f;
      j["language"] = r.lang == funmem::Lang::Fun ? "FUN" : "FUNMEM";
      j["parse"] = r.parsed ? "ok" : "error";
      j["type"] = !r.parsed ? "skipped" : r.typed ? "ok" : "error";
      j["diagnostics"] = nlohmann::json::array();
      for (const auto& d : r.diagnostics)
        j["diagnostics"].push_back({{"kind", d.kind},
                                    {"line", d.pos.line},
                                    {"column", d.pos.col},
                                    {"message", d.message}});
      j["expectations"] = nlohmann::json::array();
      for (const auto& e : r.expectations)
        j["expectations"].push_back(
            {{"expect", e.expect.word + (e.expect.arg.empty() ? "" : " " + e.expect.arg)},
             {"line", e.expect.pos.line},
             {"status", funmem::expect_status_name(e.status)},
             {"detail", e.detail}});
      j["ok"] = r.ok();
      std::cout << j.dump() << "\n";
      continue;
    }
    for (const auto& d : r.diagnostics)
      std::cout << funmem::format_diagnostic(d, f, text);
    std::cout << f << ": " << (r.lang == funmem::Lang::Fun ? "FUN" : "FUNMEM") << ", parse "
              << (r.parsed ? "ok" : "error") << ", types "
              << (!r.parsed ? "not checked"
                  : r.typed ? "ok"
                            : "error (" + std::to_string(r.diagnostics.size()) + ")")
              << "\n";
    for (const auto& e : r.expectations) {
      std::cout << "  expect " << e.expect.word << (e.expect.arg.empty() ? "" : " " + e.expect.arg)
                << ": " << funmem::expect_status_name(e.status);
      if (!e.detail.empty()) std::cout << " (" << e.detail << ")";
      std::cout << "\n";
    }
    std::cout << f << ": " << (r.ok() ? "OK" : "FAILED") << "\n";
  }
  return all_ok ? 0 : 1;
}
