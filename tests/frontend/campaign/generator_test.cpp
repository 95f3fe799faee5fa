// The random CUDA kernel generator and its campaign: kernels are reproducible, parse,
// instrument and cover every construct of the generator's table; deliberately broken
// extractors are caught and their failures shrunk.
#include "frontend/campaign/generator.h"
#include "tests/frontend/frontend_test_util.h"

#include <catch2/catch.hpp>

#include <map>

using namespace funmem;
using namespace funmem::frontend;
using funmem::frontend_test::scratch;

TEST_CASE("generated kernels: the same seed and index give the same kernel",
          "[frontend][generator]") {
  for (uint64_t i = 0; i < 20; ++i) {
    GeneratedKernel a = generate_kernel(3, i), b = generate_kernel(3, i);
    CHECK(a.source == b.source);
    CHECK(a.constructs == b.constructs);
    CHECK(a.name == "g3_" + std::to_string(i));
    CHECK(generate_kernel(3, i, true).source != a.source);
  }
  CHECK(generate_kernel(3, 0).source != generate_kernel(4, 0).source);
}

TEST_CASE("generated kernels parse, instrument, and reach every construct of the table",
          "[frontend][generator]") {
  std::map<std::string, int> seen;
  for (bool simple : {false, true})
    for (uint64_t first = 0; first < 1000; first += 50) {
      std::string src;
      for (uint64_t i = first; i < first + 50; ++i) {
        GeneratedKernel k = generate_kernel(11, i, simple);
        src += k.source;
        for (const std::string& c : k.constructs)
          ++seen[c];
      }
      // Counted only beyond the first 150 of each profile (parsing those is enough): the
      // rarest constructs need the larger sample.
      if (first >= 150) continue;
      ExtractResult r = extract(src, "gen.cu");
      INFO("kernels " << first << ".. (simple: " << simple << ")");
      CHECK(r.errors.empty());
      CHECK(r.kernels.size() == 50);
      Instrumented ins = instrument(src, "gen.cu");
      CHECK(ins.errors.empty());
    }
  for (const std::string& c : generator_constructs()) {
    INFO(c);
    CHECK(seen[c] > 0);
  }
  // Nothing outside the table.
  CHECK(seen.size() == generator_constructs().size());
}

TEST_CASE("generated-kernel campaign: the extractor passes, broken ones are caught and shrunk",
          "[frontend][generator][race-run]") {
  GeneratedCampaignOptions opt;
  opt.seed = 1;
  opt.simple = true;
  opt.race.budget_ms = 300;
  opt.race.search_limit = 5000;
  opt.race.work_dir = scratch("generated").string();
  SECTION("the extractor") {
    opt.first = 40;
    opt.count = 20;
    GeneratedCampaignResult r = generated_campaign(opt);
    CHECK(r.kernels == 20);
    CHECK(r.failures.empty());
    CHECK(r.race_free > 0);
    CHECK(r.runs > 0);
  }
  // Kernel 55 of the simple profile, seed 1, indexes an array through a cast to a
  // narrower type that wraps at the campaign's largest launch; kernel 47 bounds a loop by
  // an element other threads write; kernel 49 writes two aliasing extern arrays; kernel 5
  // writes a fixed element once its `unsigned short` counter, stepping by -1, reaches 0.
  for (const auto& [broken, index] :
       std::vector<std::pair<std::string, uint64_t>>{{"dropped-casts", 55},
                                                     {"unread-loop-headers", 47},
                                                     {"distinct-extern-shared", 49},
                                                     {"unchecked-loop-summaries", 5}}) {
    SECTION(broken) {
      opt.race.extract.broken = broken;
      opt.first = index;
      opt.count = 1;
      GeneratedCampaignResult r = generated_campaign(opt);
      REQUIRE(r.failures.size() == 1);
      const Failure& f = r.failures[0];
      CHECK(f.kind == "soundness");
      const std::string original = generate_kernel(1, index, true).source;
      INFO(f.source);
      CHECK(f.source.size() < original.size());
      CHECK(f.source.find("__global__ void g1_" + std::to_string(index)) != std::string::npos);
    }
  }
}
