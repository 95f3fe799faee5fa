// frontend/model/funmem_rt_model.h against codegen/funmem_cuda_rt.h: the model is what
// translation validation parses generated kernels with, so every device function of the
// runtime must be declared in it with the same signature, its phase macros must be the
// nvcc branch's, and its memory-block types must have the runtime's members.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

std::string slurp(const std::string& rel) {
  std::ifstream in(std::string(FUNMEM_SOURCE_DIR) + "/" + rel);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string squeeze(std::string s) {
  s = std::regex_replace(s, std::regex(R"(\s+)"), " ");
  s = std::regex_replace(s, std::regex(R"(^ | $)"), "");
  return s;
}

/// Every `FM_HD` function: its name and its signature without `inline` and without its
/// body (a template's `template <...>` prefix included).
std::map<std::string, std::string> device_functions(const std::string& text) {
  std::map<std::string, std::string> out;
  std::regex decl(
      R"(((?:template <[^>]*>\s*)?FM_HD\s+(?:inline\s+)?[^;{()]*?\b(fm_\w+)\s*\([^)]*\)))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), decl); it != std::sregex_iterator();
       ++it) {
    std::string sig = std::regex_replace((*it)[1].str(), std::regex(R"(\binline\s+)"), "");
    out[(*it)[2].str()] = squeeze(sig);
  }
  return out;
}

/// The `#define FM_...` lines of a text (name -> replacement), first definition kept.
std::map<std::string, std::string> macros(const std::string& text) {
  std::map<std::string, std::string> out;
  std::regex def(R"(#define (FM_\w+(?:\([^)]*\))?)[ \t]*([^\n]*))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), def); it != std::sregex_iterator();
       ++it) {
    std::string body = std::regex_replace((*it)[2].str(), std::regex(R"(\s*//.*$)"), "");
    out.emplace((*it)[1].str(), squeeze(body));
  }
  return out;
}

std::string struct_body(const std::string& text, const std::string& name) {
  std::smatch m;
  REQUIRE(std::regex_search(text, m, std::regex("struct " + name + R"( \{([^}]*)\};)")));
  return squeeze(std::regex_replace(m[1].str(), std::regex(R"(//[^\n]*|///[^\n]*)"), ""));
}

} // namespace

TEST_CASE("the runtime model declares every device function of the runtime, alike",
          "[frontend][model]") {
  const std::string rt = slurp("codegen/funmem_cuda_rt.h");
  const std::string model = slurp("frontend/model/funmem_rt_model.h");
  auto real = device_functions(rt), declared = device_functions(model);
  REQUIRE(real.size() >= 20);
  for (const auto& [name, sig] : real) {
    INFO(name << " in the runtime: " << sig);
    REQUIRE(declared.count(name));
    CHECK(declared.at(name) == sig);
  }
  for (const auto& [name, sig] : declared) {
    INFO(name << " declared by the model only: " << sig);
    CHECK(real.count(name));
  }
}

TEST_CASE("the runtime model's phase macros and block types are the runtime's under nvcc",
          "[frontend][model]") {
  const std::string rt = slurp("codegen/funmem_cuda_rt.h");
  const std::string model = slurp("frontend/model/funmem_rt_model.h");
  // The nvcc branch: from `#ifdef __CUDACC__` to its `#else` (the emulation's follows).
  const size_t from = rt.find("#ifdef __CUDACC__"), to = rt.find("// ---", from);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  auto nvcc = macros(rt.substr(from, to - from)), modelled = macros(model);
  for (const char* m : {"FM_HD", "FM_SHARED_CELLS", "FM_THREADS", "FM_TID", "FM_TY", "FM_TX",
                        "FM_TID2", "FM_SYNC()"}) {
    INFO(m);
    REQUIRE(nvcc.count(m));
    REQUIRE(modelled.count(m));
    CHECK(modelled.at(m) == nvcc.at(m));
  }
  for (const char* s : {"fm_cell", "fm_mem"}) {
    INFO(s);
    CHECK(struct_body(model, s) == struct_body(rt, s));
  }
}
