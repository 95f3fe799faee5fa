// funmem-prove as a command: exit codes, the NW explanation, JSON and batch errors.
#include "tests/test_util.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace {

using Run = funmem::test::CommandResult;

Run run(const std::string& args) {
  return funmem::test::run_command(std::string(FUNMEM_PROVE_BIN) + " " + args);
}

const char* nw_facts =
    "--assume 'n == q*b + 1' --assume 'q > 1' --assume 'b > 1' --assume 'i >= 1'";
const char* nw_pair = "'n + i*b + 1 + {(i + 1 : n*b - b), (b : n), (b : 1)}' "
                      "'i*b + {(i + 1 : n*b - b), (b + 1 : n)}'";

} // namespace

TEST_CASE("funmem-prove answers, explains and exits by the answer", "[tools][prover]") {
  Run nw = run(std::string(nw_facts) + " --explain " + nw_pair);
  CHECK(nw.code == 0);
  CHECK(nw.out.rfind("disjoint", 0) == 0);
  CHECK(nw.out.find("split I1 at stride n") != std::string::npos);
  CHECK(nw.out.find("distributed offsets") != std::string::npos);
  CHECK(nw.out.find("proved: ") != std::string::npos);

  Run ov = run("--assume 'n > 0' 'n - 1 + {(n : 1)}' '0 + {(n : 1)}'");
  CHECK(ov.code == 1);
  CHECK(ov.out.rfind("overlap", 0) == 0);

  Run js = run(std::string(nw_facts) + " --json " + nw_pair);
  auto j = nlohmann::json::parse(js.out);
  CHECK(j["answer"] == "disjoint");
  CHECK(j["proof"]["children"].size() == 2);
  CHECK(j["facts"].size() == 4);
  CHECK(j["stats"].contains("wall_guard")); // checks the wall-clock guard stopped

  CHECK(run("'0 + {(n : 1)}'").code == 2);
  Run bad = run("'0 + {(n 1)}' '0 + {}'");
  CHECK(bad.code == 2);
  CHECK(bad.out.find("<LMAD1>:1:") != std::string::npos);
  CHECK(run("--assume 'n + 1' '0 + {}' '1 + {}'").code == 2);
  CHECK(run("--timeout-ms 0 '0 + {}' '1 + {}'").code == 2);
}

TEST_CASE("funmem-prove --batch reports malformed lines with their position", "[tools][prover]") {
  auto path = std::filesystem::temp_directory_path() / "funmem_prove_batch.prove";
  {
    std::ofstream f(path);
    f << "# a comment\n\n"
         "0 + {(n : 1)} ; n + {(n : 1)} ; n > 0\n"
         "0 + {(3 : 1)} ; 2 + {(3 : 1)} ;\n"
         "0 + {(3 : 1)} ; 2 + {(3 : 1)} ; n >\n";
  }
  Run r = run("--batch " + path.string());
  CHECK(r.code == 2);
  CHECK(r.out.find("disjoint") != std::string::npos);
  CHECK(r.out.find("overlap") != std::string::npos);
  CHECK(r.out.find(path.string() + ":5:") != std::string::npos);
  Run ok = run("--batch " + std::string(FUNMEM_SOURCE_DIR) + "/corpus/prove/basic.prove --json");
  CHECK(ok.code == 0);
  std::filesystem::remove(path);
}
