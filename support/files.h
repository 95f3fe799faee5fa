// Reading whole files and quoting words for the shell: shared by the tools, the CUDA
// checks and the tuner, which run compilers and generated programs as processes.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace funmem {

/// The whole file, bytes as they are; `ok` (when given) says whether it could be opened.
inline std::string read_file(const std::string& path, bool* ok = nullptr) {
  std::ifstream in(path, std::ios::binary);
  if (ok) *ok = static_cast<bool>(in);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// `s` as one word for /bin/sh (single quotes; a quote inside becomes '\'').
inline std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) {
    if (c == '\'')
      o += "'\\''";
    else
      o += c;
  }
  return o + "'";
}

} // namespace funmem
