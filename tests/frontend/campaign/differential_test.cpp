// The kernel mutator and the differential campaign against funmem-extract's static
// verdicts: every mutation applies alone and behind its switch, the extractor passes,
// a broken one is caught and shrunk.
#include "frontend/campaign/differential.h"
#include "tests/frontend/frontend_test_util.h"
#include "tests/test_util.h"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace funmem;
using namespace funmem::frontend;
using funmem::frontend_test::scratch;
namespace fs = std::filesystem;

TEST_CASE("mutations: each applies alone, all together behind their switches",
          "[frontend][race-run]") {
  const std::string code = "__global__ void k(float* a, int n) {\n"
                           "  __shared__ float s[8];\n"
                           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "  if (i >= n) return;\n"
                           "  s[threadIdx.x] = a[i];\n"
                           "  __syncthreads();\n"
                           "  if (threadIdx.x > 0) a[i] = s[threadIdx.x - 1];\n"
                           "}\n";
  std::vector<Mutation> ms = mutations(code, "m.cu");
  std::map<std::string, int> kinds;
  for (const Mutation& m : ms) {
    for (const char* k :
         {"off by one", "replaced by", "barrier", "early return", "guard", "a store", "a call"})
      if (m.what.find(k) != std::string::npos) ++kinds[k];
    std::string src = apply_mutants(code, ms, {static_cast<size_t>(&m - ms.data())});
    INFO(m.what << "\n" << src);
    CHECK(src != code);
    CHECK(extract(src, "m.cu").errors.empty());
  }
  CHECK(kinds["off by one"] == 4);
  CHECK(kinds["replaced by"] == 5);
  CHECK(kinds["barrier"] == 1);
  CHECK(kinds["early return"] == 1);
  CHECK(kinds["guard"] == 1);
  CHECK(kinds["a store"] == 2);
  CHECK(kinds["a call"] == 1);
  std::string schema = schema_source(code, ms);
  CHECK(schema.find("fm_mutant(0)") != std::string::npos);
  Instrumented ins = instrument(schema, "m.cu");
  CHECK(ins.errors.empty());
}

TEST_CASE("the shrinker deletes every statement the failure does not need, in one pass",
          "[frontend][shrink]") {
  const std::string code = "__global__ void k(int* a) {\n"
                           "  int x = 1;\n"
                           "  if (x) {\n"
                           "    a[1] = 2;\n"
                           "    a[2] = 3;\n"
                           "    a[0] = 1;\n"
                           "  }\n"
                           "  a[3] = x;\n"
                           "  for (int i = 0; i < 2; ++i) { a[4] = i; a[5] = i; }\n"
                           "}\n";
  int calls = 0;
  const std::string out = shrink_kernel_source(code, [&](const std::string& s) {
    ++calls;
    for (const char* keep : {"int x = 1;", "if (x) {", "a[0] = 1;"})
      if (s.find(keep) == std::string::npos) return false;
    return true;
  });
  // The loop's body goes first, then the loop itself (its end moved by the deletions
  // inside it).
  CHECK(out == "__global__ void k(int* a) {\n"
               "  int x = 1;\n"
               "  if (x) {\n"
               "    ;\n"
               "    ;\n"
               "    a[0] = 1;\n"
               "  }\n"
               "  ;\n"
               "  ;\n"
               "}\n");
  // Nine statements in the first pass; the second tries the three kept ones again.
  CHECK(calls == 12);
}

TEST_CASE("differential campaign: the extractor passes, a broken one is caught and shrunk",
          "[frontend][race-run]") {
  const fs::path file = fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "cuda" / "arrow-offset.cu";
  const std::string code = test::slurp(file);
  RaceCampaignOptions opt;
  opt.work_dir = scratch("campaign").string();
  opt.pairs_per_kernel = 4;
  RaceCampaignResult ok = campaign_file(code, "arrow-offset.cu", opt);
  CHECK(ok.mutants >= 4);
  CHECK(ok.failures.empty());
  CHECK(ok.dynamic_races > 0);
  // An extractor that looks at member stores and records nothing: the census cannot
  // see it; the campaign does, and shrinks the mutant.
  opt.extract.broken = "dropped-member-stores";
  opt.regress_dir = scratch("regress").string();
  RaceCampaignResult bad = campaign_file(code, "arrow-offset.cu", opt);
  REQUIRE_FALSE(bad.failures.empty());
  const Failure& f = bad.failures[0];
  CHECK(f.kind == "soundness");
  CHECK(f.source.size() < apply_mutants(code, mutations(code, "arrow-offset.cu"), {0}).size() + 64);
  CHECK(f.source.find("->x =") != std::string::npos); // the racy store stays
  size_t written = 0;
  for (const auto& e : fs::directory_iterator(opt.regress_dir))
    written += e.path().extension() == ".cu";
  CHECK(written == bad.failures.size());
  fs::remove_all(opt.regress_dir);
  fs::remove_all(opt.work_dir);
}
