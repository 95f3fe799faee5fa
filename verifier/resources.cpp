#include "verifier/resources.h"

#include "support/files.h"
#include "support/process.h"
#include "verifier/cuda_check.h"

#include <filesystem>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace funmem {

namespace {

/// `_Z<len><name>...` -> name; anything else unchanged.
std::string demangle_simple(const std::string& m) {
  if (m.rfind("_Z", 0) != 0) return m;
  size_t k = 2, len = 0;
  while (k < m.size() && std::isdigit(static_cast<unsigned char>(m[k])))
    len = len * 10 + static_cast<size_t>(m[k++] - '0');
  if (len == 0 || k + len > m.size()) return m;
  return m.substr(k, len);
}

} // namespace

std::vector<KernelResources> parse_ptxas_report(const std::string& text) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex cmem(R"((\d+) bytes cmem\[0\])");
  std::vector<KernelResources> out;
  std::optional<KernelResources> cur;
  std::istringstream in(text);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, entry)) {
      cur = KernelResources{};
      cur->mangled = m[1];
      cur->kernel = demangle_simple(cur->mangled);
      continue;
    }
    if (!cur) continue;
    if (std::regex_search(line, m, frame)) {
      cur->stack_bytes = std::stoll(m[1]);
      cur->spill_store_bytes = std::stoll(m[2]);
      cur->spill_load_bytes = std::stoll(m[3]);
    }
    if (std::regex_search(line, m, used)) {
      cur->registers = std::stoi(m[1]);
      if (std::regex_search(line, m, barriers)) cur->barriers = std::stoi(m[1]);
      if (std::regex_search(line, m, smem)) cur->shared_bytes = std::stoll(m[1]);
      if (std::regex_search(line, m, cmem)) cur->constant_bytes = std::stoll(m[1]);
      out.push_back(*cur);
      cur.reset();
    }
  }
  return out;
}

std::optional<std::vector<KernelResources>>
ptxas_resources(const std::string& cu_path, const std::string& arch,
                const std::vector<std::string>& extra_flags, std::string* error) {
  const std::string nvcc = nvcc_path();
  if (nvcc.empty()) {
    if (error) *error = "nvcc not found under /usr/local/cuda";
    return std::nullopt;
  }
  const fs::path dir = fs::path(cu_path).parent_path();
  const fs::path cubin = fs::path(cu_path).replace_extension(".resources.cubin");
  std::string cmd = nvcc + " -std=c++20 -O3 --fmad=false -arch=" + arch + " -I " +
                    shell_quote(dir.empty() ? "." : dir.string()) + " --resource-usage";
  for (const std::string& f : extra_flags)
    cmd += " " + shell_quote(f);
  cmd += " -x cu " + shell_quote(cu_path) + " --cubin -o " + shell_quote(cubin.string());
  std::string out, err;
  const int rc = run_command(cmd, &out, &err);
  std::error_code ec;
  fs::remove(cubin, ec);
  if (rc != 0) {
    if (error) *error = "nvcc failed (status " + std::to_string(rc) + "):\n" + out + err;
    return std::nullopt;
  }
  return parse_ptxas_report(out + "\n" + err);
}

} // namespace funmem
