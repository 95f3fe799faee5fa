// Drives the whole corpus: every file's `-- expect:` lines must hold (or be
// unchecked run-time expectations), every parseable file prints to a fixed point,
// and the funmem-check binary's exit codes follow its contract.
#include "ir/parser.h"
#include "ir/printer.h"
#include "verifier/check.h"

#include "tests/test_util.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace funmem;
namespace fs = std::filesystem;
using funmem::test::slurp;

namespace {

std::vector<fs::path> corpus_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(FUNMEM_SOURCE_DIR) / "corpus"))
    if (e.path().extension() == ".fun" || e.path().extension() == ".funmem")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

int run(const std::string& cmd) {
  int rc = std::system((cmd + " > /dev/null 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

} // namespace

TEST_CASE("every corpus file meets its expectations", "[corpus]") {
  auto files = corpus_files();
  REQUIRE(files.size() >= 25);
  int wrong = 0;
  for (const fs::path& f : files) {
    std::string text = slurp(f);
    CheckReport r = check_source(f.string(), text);
    std::string why;
    for (const auto& d : r.diagnostics)
      why += format_diagnostic(d, f.filename().string(), text);
    for (const auto& e : r.expectations)
      why += "expect " + e.expect.word + " " + e.expect.arg + ": " + expect_status_name(e.status) +
             " " + e.detail + "\n";
    INFO(f.string() << "\n" << why);
    CHECK(r.ok());
    // Only the optimiser's expectations may remain unchecked; everything else ran, under
    // both semantics.
    for (const auto& e : r.expectations)
      if (e.expect.word != "short-circuit") CHECK(e.status == ExpectStatus::Holds);
    if (r.typed) {
      CHECK_FALSE(r.runs.empty());
      for (const auto& d : r.runs)
        CHECK(d.heap_ran == !d.input_error); // FUN: the fun-to-funmem translation's heap run
      CHECK(r.pipeline_error.empty());
    }
    bool expects_error = false;
    for (const auto& e : r.expectations)
      expects_error |= e.expect.word == "error";
    if (f.parent_path().filename() == "errors") {
      ++wrong;
      CHECK(expects_error);
    } else {
      CHECK(r.typed);
    }
  }
  CHECK(wrong >= 15);
}

TEST_CASE("the printer reaches a fixed point on every corpus file", "[corpus][printer]") {
  for (const fs::path& f : corpus_files()) {
    ParseResult r = parse_program(slurp(f), lang_of_path(f.string()));
    if (!r.program) continue;
    std::string once = print_program(*r.program);
    ParseResult again = parse_program(once, r.program->lang);
    INFO(f.string() << "\n" << once);
    REQUIRE(again.program);
    CHECK(*again.program == *r.program);
    CHECK(print_program(*again.program) == once);
  }
}

TEST_CASE("funmem-check exit codes", "[tools]") {
  std::string bin = FUNMEM_CHECK_BIN;
  std::string dir = std::string(FUNMEM_SOURCE_DIR) + "/corpus/";
  CHECK(run(bin + " " + dir + "thesis/listing-6.2-antidiag.funmem") == 0);
  CHECK(run(bin + " --json " + dir + "errors/type-undefined-name.fun") == 0);
  CHECK(run(bin + " --no-such-flag") == 2);
  CHECK(run(bin) == 2);
  CHECK(run(bin + " /nonexistent/file.fun") == 2);
  // A file whose expectation fails exits 1.
  fs::path tmp = fs::temp_directory_path() / "funmem_check_fail.fun";
  std::ofstream(tmp) << "def f (n : i64) : (i64) =\n  in (n)\n-- expect: error type\n";
  CHECK(run(bin + " " + tmp.string()) == 1);
  fs::remove(tmp);
}

TEST_CASE("every stage ends as the source does; a broken sc that changes an error is caught",
          "[tools][sc]") {
  // The bounds of the update follow only from an assume after src's creation: sc must
  // not build src in dst's memory, and every stage ends with the assume's error.
  const fs::path file =
      fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "sc" / "refuse-bounds-late-assume.fun";
  const std::string text = test::slurp(file);
  CheckReport ok = check_source(file.string(), text);
  CHECK(ok.stage_mismatches.empty());
  CHECK(ok.ok());
  REQUIRE(ok.sc);
  CHECK(ok.sc->proved_points() == 0);
  // With the facts of the point (the old, broken rule) sc short-circuits, the heap
  // semantics after it writes outside dst's block first, and funmem-check fails the file
  // naming the stage, although `expect error assume` still holds on the source.
  CheckOptions broken;
  REQUIRE(set_broken_variant(broken.passes, "sc-late-facts"));
  CheckReport bad = check_source(file.string(), text, broken);
  REQUIRE(bad.sc);
  CHECK(bad.sc->proved_points() == 1);
  CHECK_FALSE(bad.ok());
  REQUIRE_FALSE(bad.stage_mismatches.empty());
  CHECK(bad.stage_mismatches[0].find("after sc: stage sc ends with the bounds error at 5:24") !=
        std::string::npos);
  CHECK(bad.stage_mismatches[0].find("the source with the assume error at 6:3") !=
        std::string::npos);
}
