// The census: every node that can touch memory is accounted for, and a broken extractor
// is caught.
#include "tests/frontend/frontend_test_util.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace funmem;
using namespace funmem::frontend;
using namespace funmem::frontend_test;
namespace fs = std::filesystem;

TEST_CASE("the census accounts for every node that can touch memory", "[frontend]") {
  // Every corpus kernel: each census node is accounted for (or the kernel is
  // unsupported, never race-free, with the node named).
  for (const auto& e : fs::directory_iterator(fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "cuda")) {
    if (e.path().extension() != ".cu") continue;
    INFO(e.path().filename().string());
    ExtractResult r = extract(test::slurp(e.path()), e.path().filename().string());
    for (const KernelSummary& k : r.kernels) {
      CHECK_FALSE(k.census.empty());
      for (const CensusEntry& c : k.census) {
        INFO(c.text << " at " << c.pos.line << ":" << c.pos.col);
        CHECK_FALSE(c.how.empty());
      }
    }
  }
  // An extractor that returns from a member store without looking at it: the census
  // finds the node, and the kernel is unsupported instead of race-free.
  const std::string code =
      test::slurp(fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "cuda" / "arrow-offset.cu");
  ExtractOptions broken;
  broken.broken = "unvisited-member-stores";
  ExtractResult r = extract(code, "arrow-offset.cu", {}, broken);
  REQUIRE(r.kernels.size() == 1);
  RaceOptions o;
  KernelVerdict kv = check_kernel(r.kernels[0], o);
  CHECK(kv.verdict == Verdict::Unsupported);
  CHECK(kv.reason.find("internal: unaccounted memory access at 7:3") != std::string::npos);
  // One that looks at it and records nothing fools the census: that is what the dynamic
  // detector and the differential campaign are for (tests/frontend/race_run_test.cpp).
  broken.broken = "dropped-member-stores";
  r = extract(code, "arrow-offset.cu", {}, broken);
  CHECK(check_kernel(r.kernels[0], o).verdict == Verdict::RaceFree);
}
