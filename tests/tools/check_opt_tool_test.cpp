// funmem-check's run-time options and output formats, and funmem-opt's passes, as
// commands: --input, --seed, --max-steps, --json runs, --sarif, pass errors.
#include "tests/test_util.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

namespace {

using Out = funmem::test::CommandResult;

Out run(const std::string& cmd) {
  return funmem::test::run_command(cmd);
}

const std::string corpus = std::string(FUNMEM_SOURCE_DIR) + "/corpus/";

} // namespace

TEST_CASE("funmem-check --input, --seed and limits", "[tools]") {
  std::string bin = FUNMEM_CHECK_BIN;
  Out in =
      run(bin + " --input 'n=3 xs=[5, 6, 7]' " + corpus + "invalid/reuse-clobbers-live.funmem");
  CHECK(in.code == 0);
  CHECK(in.out.find("--input 1: n=3 xs=[5, 6, 7]") != std::string::npos);
  CHECK(in.out.find("value semantics 6, heap semantics 10") != std::string::npos);
  // A malformed --input is a usage error with its column.
  Out bad = run(bin + " --input 'n=' " + corpus + "invalid/reuse-clobbers-live.funmem");
  CHECK(bad.code == 2);
  CHECK(bad.out.find("<input 1>:1:") != std::string::npos);
  // Different seeds give different random arrays; the same seed the same ones.
  Out s1 = run(bin + " --seed 1 --json " + corpus + "race/write-write.funmem");
  Out s2 = run(bin + " --seed 2 --json " + corpus + "race/write-write.funmem");
  Out s1b = run(bin + " --seed 1 --json " + corpus + "race/write-write.funmem");
  auto inputs = [](const Out& o) { return nlohmann::json::parse(o.out)["runs"][0]["inputs"]; };
  CHECK(inputs(s1) == inputs(s1b));
  CHECK(inputs(s1) != inputs(s2));
  // A directory is refused with a clear error, not read as an empty program.
  Out dir = run(bin + " " + corpus + "regress");
  CHECK(dir.code == 2);
  CHECK(dir.out.find("regress: error: is a directory, not a file") != std::string::npos);
  // --max-steps turns a long run into a resource error (the file expects validity: exit 1).
  Out steps = run(bin + " --max-steps 50 " + corpus + "passes/pipeline-example.fun");
  CHECK(steps.code == 1);
  CHECK(steps.out.find("--max-steps 50") != std::string::npos);
}

TEST_CASE("funmem-check --json lists every run and --sarif is a SARIF log", "[tools]") {
  std::string bin = FUNMEM_CHECK_BIN;
  Out j = run(bin + " --json " + corpus + "passes/rowsums.fun");
  auto r = nlohmann::json::parse(j.out);
  CHECK(r["ok"] == true);
  REQUIRE(r["runs"].size() == 7); // one data set after seven stages (expand-cpu included)
  CHECK(r["runs"][1]["data_set"].get<std::string>().find("after sc") != std::string::npos);
  CHECK(r["sc"]["points"] == 0);
  CHECK(r["runs"][5]["data_set"].get<std::string>().find("after expand-cpu") != std::string::npos);
  CHECK(r["runs"][6]["data_set"].get<std::string>().find("after to-imp") != std::string::npos);
  Out s = run(bin + " --sarif " + corpus + "race/read-write.funmem");
  auto log = nlohmann::json::parse(s.out);
  CHECK(log["version"] == "2.1.0");
  auto& results = log["runs"][0]["results"];
  REQUIRE_FALSE(results.empty());
  CHECK(results[0]["ruleId"] == "funmem/race");
  CHECK(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 4);
}

TEST_CASE("funmem-opt runs passes and reports them", "[tools]") {
  std::string bin = FUNMEM_OPT_BIN;
  Out ok = run(bin + " --report --pass fun-to-funmem,merge,expand,to-imp " + corpus +
               "passes/pipeline-example.fun");
  CHECK(ok.code == 0);
  CHECK(ok.out.find("merge: 5 allocations before, 4 after (1 blocks merged)") != std::string::npos);
  CHECK(ok.out.find("peak memory on the input at line") != std::string::npos);
  CHECK(ok.out.find("sq_mem_x[j * n + i] <- y") != std::string::npos);
  CHECK(run(bin + " --pass nonsense " + corpus + "passes/rowsums.fun").code == 2);
  CHECK(run(bin + " --pass fun-to-funmem,to-imp,merge " + corpus + "passes/rowsums.fun").code == 2);
  // A FUNMEM-only pass on a FUN program fails with a message.
  Out wrong = run(bin + " --pass merge " + corpus + "passes/rowsums.fun");
  CHECK(wrong.code == 1);
  CHECK(wrong.out.find("merge needs a FUNMEM program") != std::string::npos);
}

TEST_CASE("funmem-opt --pass sc reports every attempt, also as JSON", "[tools][sc]") {
  std::string bin = FUNMEM_OPT_BIN;
  Out rep = run(bin + " --report --pass sc " + corpus + "nw/nw-full.funmem");
  CHECK(rep.code == 0);
  CHECK(rep.out.find("26:5: update: upd into a") != std::string::npos);
  CHECK(rep.out.find("sc: 3 points short-circuited") != std::string::npos);
  Out j = run(bin + " --json --pass sc " + corpus + "thesis/section-6.4.2-not-liftable.funmem");
  CHECK(j.code == 0);
  auto r = nlohmann::json::parse(j.out);
  REQUIRE(r["passes"].size() == 1);
  const auto& a = r["passes"][0]["sc"]["attempts"];
  REQUIRE(a.size() == 1);
  CHECK(a[0]["proved"] == false);
  CHECK(a[0]["property"] == "6.4.2 index-function projection");
  CHECK(a[0]["point"]["line"] == 8);
  CHECK(r["program"].get<std::string>().find("alloc n") != std::string::npos);
}
