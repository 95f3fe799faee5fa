// funmem-opt [--pass P1,P2,...] [--report] FILE: parse and type-check a FUN / FUNMEM
// file, run the passes in order (each result is type-checked again), and print the
// program in canonical form (printing the printed form changes nothing).
// Passes: fun-to-funmem. The other passes of docs/design.md arrive with their issues.
#include "analysis/fun_to_funmem.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  CLI::App app{"funmem-opt: print (and later transform) FUN / FUNMEM programs"};
  std::string file;
  bool no_verify = false, report = false;
  std::vector<std::string> passes;
  app.add_option("file", file, "FUN (.fun) or FUNMEM (.funmem) file")->required();
  app.add_option("--pass", passes, "passes to run in order: fun-to-funmem")->delimiter(',');
  app.add_flag("--report", report, "print what each pass did (to stderr)");
  app.add_flag("--no-verify", no_verify, "print even when the program does not type-check");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::cerr << file << ": error: cannot read the file\n";
    return 2;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
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
  for (const std::string& pass : passes) {
    if (pass != "fun-to-funmem") {
      std::cerr << "funmem-opt: error: unknown pass '" << pass << "' (available: fun-to-funmem)\n";
      return 2;
    }
    if (p.lang != funmem::Lang::Fun) {
      std::cerr << file << ": error: fun-to-funmem needs a FUN program\n";
      return 1;
    }
    funmem::FunToFunmemReport rep;
    std::string why;
    auto out = funmem::fun_to_funmem(p, &rep, &why);
    if (!out) {
      std::cerr << file << ": error: fun-to-funmem: " << why << "\n";
      return 1;
    }
    auto errs = funmem::typecheck(*out);
    if (!errs.empty()) {
      std::string printed = funmem::print_program(*out);
      for (const auto& d : errs)
        std::cerr << "fun-to-funmem produced an ill-typed program: "
                  << funmem::format_diagnostic(d, "<fun-to-funmem output>", printed);
      return 1;
    }
    if (report)
      std::cerr << "fun-to-funmem: " << rep.allocations << " allocations, " << rep.copies
                << " copies, " << rep.mem_params << " memory parameters added\n";
    p = *out;
  }
  std::cout << funmem::print_program(p);
  return 0;
}
