// Reading whole files and quoting words for the shell: shared by the tools, the CUDA
// checks and the tuner, which run compilers and generated programs as processes.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace funmem {

/// The whole file, bytes as they are; `ok` (when given) says whether it could be opened
/// (a directory cannot: reading one would give an empty text).
inline std::string read_file(const std::string& path, bool* ok = nullptr) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    if (ok) *ok = false;
    return "";
  }
  std::ifstream in(path, std::ios::binary);
  if (ok) *ok = static_cast<bool>(in);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Why read_file could not read `path`, for a `PATH: error: ...` line.
inline std::string unreadable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "is a directory, not a file";
  return "cannot read the file";
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
