// The value census: every value the extractor does not follow exactly is an unknown with
// a position and a reason; the construct table of docs/extract.md has a row for every
// statement and expression class of Clang.
#include "tests/frontend/frontend_test_util.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace funmem;
using namespace funmem::frontend;
using namespace funmem::frontend_test;
namespace fs = std::filesystem;

namespace {

/// Every class of Clang's statements and expressions that a tree can hold.
std::vector<std::string> clang_node_classes() {
  return {
#define ABSTRACT_STMT(S)
#define STMT(CLASS, PARENT) #CLASS,
#include <clang/AST/StmtNodes.inc>
  };
}

/// The names in backquotes of the section "Clang's node classes" of docs/extract.md.
std::set<std::string> documented_classes() {
  std::ifstream in(fs::path(FUNMEM_SOURCE_DIR) / "docs" / "extract.md");
  std::string line;
  bool inside = false;
  std::set<std::string> out;
  const std::regex name("`([A-Za-z]+\\*?)`");
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) inside = line.find("Clang's node classes") != std::string::npos;
    if (!inside || line.rfind("|", 0) != 0) continue;
    // The first column names the classes.
    const std::string first = line.substr(0, line.find('|', 1));
    for (std::sregex_iterator it(first.begin(), first.end(), name), end; it != end; ++it)
      out.insert((*it)[1].str());
  }
  return out;
}

} // namespace

TEST_CASE("the construct table has a row for every class of Clang's statements and expressions",
          "[frontend]") {
  const std::set<std::string> doc = documented_classes();
  REQUIRE(doc.size() > 50);
  const std::vector<std::string> all = clang_node_classes();
  REQUIRE(all.size() > 200);
  for (const std::string& c : all) {
    INFO(c);
    // `OMP*` stands for every class of that prefix.
    bool found = doc.count(c) > 0;
    for (const std::string& d : doc)
      if (d.back() == '*' && c.rfind(d.substr(0, d.size() - 1), 0) == 0) found = true;
    CHECK(found);
  }
  // And no row names a class Clang does not have.
  for (const std::string& d : doc) {
    INFO(d);
    if (d.back() == '*') continue;
    CHECK(std::find(all.begin(), all.end(), d) != all.end());
  }
}

TEST_CASE("the value census names every unknown with where and why", "[frontend]") {
  // Every corpus kernel: one census entry per unknown, each with a reason.
  for (const auto& e : fs::directory_iterator(fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "cuda")) {
    if (e.path().extension() != ".cu") continue;
    INFO(e.path().filename().string());
    ExtractResult r = extract(test::slurp(e.path()), e.path().filename().string());
    for (const KernelSummary& k : r.kernels) {
      REQUIRE(k.values.size() == k.unknowns.size());
      for (size_t i = 0; i < k.values.size(); ++i) {
        INFO(k.values[i].text);
        CHECK(k.values[i].unknown == k.unknowns[i]);
        CHECK_FALSE(k.values[i].why.empty());
        CHECK(k.values[i].pos.line > 0);
      }
    }
  }
  // The reasons of a kernel's values, in order.
  KernelSummary k = one(R"(
    __global__ void k(int* a, const int* b, float f, int n) {
      int i = threadIdx.x;
      a[b[i]] = 1;
      a[i & 7] = 2;
      a[(int)f] = 3;
      a[i ^ n] = 4;
      int m;
      if (n > 0) m = 1; else m = 2;
      a[m] = 5;
    })");
  std::vector<std::string> why;
  for (const ValueEntry& v : k.values)
    why.push_back(v.text + ": " + v.why);
  CAPTURE(why);
  auto has = [&](const std::string& text, const std::string& part) {
    for (const ValueEntry& v : k.values)
      if (v.text == text && v.why.find(part) != std::string::npos) return true;
    return false;
  };
  CHECK(has("b[i]", "read from memory"));
  CHECK(has("i & 7", "a mask by a constant"));
  CHECK(has("f", "not an integer")); // the implicit conversion under `(int)`
  CHECK(has("i ^ n", "'^'"));
  CHECK(has("m", "declared without a value"));
  CHECK(has("m", "assigned differently in the branches"));
}
