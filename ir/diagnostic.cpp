// Compiler-style rendering of diagnostics (see diagnostic.h).
#include "ir/diagnostic.h"

namespace funmem {

std::string format_diagnostic(const Diagnostic& d, const std::string& file,
                              const std::string& source) {
  std::string s = file + ":" + std::to_string(d.pos.line) + ":" + std::to_string(d.pos.col) +
                  ": error: " + d.message + "\n";
  if (d.pos.line <= 0) return s;
  size_t start = 0;
  for (int l = 1; l < d.pos.line && start != std::string::npos; ++l) {
    start = source.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos || start > source.size()) return s;
  size_t end = source.find('\n', start);
  std::string line =
      source.substr(start, end == std::string::npos ? std::string::npos : end - start);
  for (char& c : line)
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = ' ';
  s += "  " + line + "\n  ";
  for (int i = 1; i < d.pos.col && i <= static_cast<int>(line.size()); ++i)
    s += ' ';
  return s + "^\n";
}

} // namespace funmem
