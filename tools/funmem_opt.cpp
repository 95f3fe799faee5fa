// funmem-opt FILE: parse and type-check a FUN / FUNMEM file and print it in canonical
// form (printing the printed form changes nothing). Passes arrive with their issues.
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
  bool no_verify = false;
  app.add_option("file", file, "FUN (.fun) or FUNMEM (.funmem) file")->required();
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
  std::cout << funmem::print_program(*r.program);
  return 0;
}
