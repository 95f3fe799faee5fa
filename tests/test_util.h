// Small helpers shared by the tests.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace funmem::test {

/// The whole content of a file, bytes as they are.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// FUNMEM_CUDA_CORPUS_LIMIT, when set: how many corpus programs (or kernels of each
/// verdict) the tests that build and run generated code take. The sanitizer build sets
/// it: the compilers and the programs they build run outside the sanitizers anyway.
inline std::optional<size_t> cuda_corpus_limit() {
  const char* v = std::getenv("FUNMEM_CUDA_CORPUS_LIMIT");
  if (!v) return std::nullopt;
  return static_cast<size_t>(std::atoi(v));
}

/// FUNMEM_EXTRACT_CORPUS_EVERY, when set to N: the tests that run the extractor and its
/// prover over every corpus/cuda file take every N-th (in name order). The sanitizer build
/// sets it: there Z3 runs on AddressSanitizer's allocator, about five times slower.
inline size_t extract_corpus_every() {
  const char* v = std::getenv("FUNMEM_EXTRACT_CORPUS_EVERY");
  return v && std::atoi(v) > 1 ? static_cast<size_t>(std::atoi(v)) : 1;
}

/// A command's exit code and its output (stdout and stderr together).
struct CommandResult {
  int code = -1;
  std::string out;
};

/// Runs a shell command; code is -1 when it could not run or did not exit normally.
inline CommandResult run_command(const std::string& cmd) {
  CommandResult r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    r.out.append(buf, n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

} // namespace funmem::test
