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
  CheckOptions audited; // the corpus is checked with the cell audit (funmem-check --audit-sc)
  audited.limits.audit = true;
  for (const fs::path& f : files) {
    std::string text = slurp(f);
    CheckReport r = check_source(f.string(), text, audited);
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

TEST_CASE("every stage ends as the source does, a broken sc that changes an error is caught",
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

namespace {

bool has_line(const std::vector<std::string>& lines, const std::string& start) {
  for (const std::string& l : lines)
    if (l.rfind(start, 0) == 0) return true;
  return false;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines)
    s += l + "\n";
  return s;
}

} // namespace

TEST_CASE("a read of a block that holds another element type may fail: sc without the rule "
          "is caught",
          "[tools][sc]") {
  // Each file reads an f64 array over cells an i64 array wrote; sc judging that read
  // unable to fail moves a statement that fails past it, and the sc stage then ends
  // otherwise than the source.
  for (const char* name : {"sc-hoist-past-read-other-elemtype.funmem",
                           "sc-lift-read-past-assume-other-elemtype.funmem",
                           "sc-check-past-read-other-elemtype.funmem"}) {
    INFO(name);
    const fs::path file = fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "regress" / name;
    const std::string text = test::slurp(file);
    CheckReport ok = check_source(file.string(), text);
    CHECK(ok.ok());
    CheckOptions broken;
    REQUIRE(set_broken_variant(broken.passes, "sc-ignore-elemtype"));
    CheckReport bad = check_source(file.string(), text, broken);
    CHECK_FALSE(bad.ok());
    REQUIRE_FALSE(bad.stage_mismatches.empty());
    CHECK(bad.stage_mismatches[0].find("after sc: stage sc ends with") != std::string::npos);
  }
}

TEST_CASE("a hoist that passes a use of a block it moves: sc without the rule is caught",
          "[tools][sc]") {
  // v reads a0's cell between row's creation and d's, both in dm: hoisted above the read,
  // d's zeros overwrite it (class 7). The counterpart reads an array in no moved block
  // and is hoisted either way.
  const fs::path dir = fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "regress";
  CheckOptions broken;
  REQUIRE(set_broken_variant(broken.passes, "sc-hoist-past-use"));
  const fs::path past = dir / "sc-hoist-past-read-moved-block.funmem";
  const std::string text = test::slurp(past);
  CHECK(check_source(past.string(), text).ok());
  CheckReport bad = check_source(past.string(), text, broken);
  CHECK_FALSE(bad.ok());
  REQUIRE_FALSE(bad.stage_mismatches.empty());
  INFO(bad.stage_mismatches[0]);
  CHECK(bad.stage_mismatches[0].find("after sc: stage sc's results differ") != std::string::npos);
  const fs::path after = dir / "sc-hoist-read-outside-moved-block.funmem";
  CHECK(check_source(after.string(), test::slurp(after), broken).ok());
}

TEST_CASE("a read of the creating if's other result lifted above the if: sc without the "
          "rule is caught",
          "[tools][sc]") {
  // k0 reads b, which the if creating y also creates (class 4): lifted to y's creation,
  // the output reads b before its definition. The counterpart creates b before the if
  // and is short-circuited either way.
  const fs::path dir = fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "sc";
  CheckOptions broken;
  REQUIRE(set_broken_variant(broken.passes, "sc-lift-if-result"));
  const fs::path refused = dir / "refuse-if-other-result-index.fun";
  const std::string text = test::slurp(refused);
  CHECK(check_source(refused.string(), text).ok());
  CheckReport bad = check_source(refused.string(), text, broken);
  CHECK_FALSE(bad.ok());
  INFO(bad.pipeline_error);
  CHECK(bad.pipeline_error.find("'b' is not defined") != std::string::npos);
  const fs::path before = dir / "if-other-array-before-index.fun";
  CHECK(check_source(before.string(), test::slurp(before), broken).ok());
}

TEST_CASE("the other branch's reads of an if's outside result: sc without the rule is caught",
          "[tools][sc]") {
  // b, returned by the else branch, is built in x's row from its creation; the then
  // branch sums it in a loop after creating y0 there (class 13). The counterpart sums
  // it before y0's creation and is short-circuited either way.
  const fs::path dir = fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "sc";
  CheckOptions broken;
  REQUIRE(set_broken_variant(broken.passes, "sc-if-branch-uses"));
  const fs::path after = dir / "if-outside-read-in-loop.fun";
  const std::string text = test::slurp(after);
  CHECK(check_source(after.string(), text).ok());
  CheckReport bad = check_source(after.string(), text, broken);
  CHECK_FALSE(bad.ok());
  REQUIRE_FALSE(bad.stage_mismatches.empty());
  INFO(bad.stage_mismatches[0]);
  CHECK(bad.stage_mismatches[0].find("after sc: stage sc") != std::string::npos);
  const fs::path before = dir / "if-outside-read-before.fun";
  CHECK(check_source(before.string(), test::slurp(before), broken).ok());
}

TEST_CASE("a view of an if's outside result in a branch: two rules refuse it, each alone",
          "[tools][sc]") {
  // b, returned by the then branch, is read there through a view (class 14): the block
  // rule and the outside-result rule each refuse the point; without both, sc's output
  // leaves the view in b's block and does not type-check.
  const fs::path file =
      fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "sc" / "refuse-if-outside-view.fun";
  const std::string text = test::slurp(file);
  for (const char* one : {"sc-shared-block", "sc-if-outside-uses"}) {
    CheckOptions o;
    REQUIRE(set_broken_variant(o.passes, one));
    CHECK(check_source(file.string(), text, o).ok());
  }
  CheckOptions both;
  REQUIRE(set_broken_variant(both.passes, "sc-shared-block"));
  REQUIRE(set_broken_variant(both.passes, "sc-if-outside-uses"));
  CheckReport bad = check_source(file.string(), text, both);
  CHECK_FALSE(bad.ok());
  INFO(bad.pipeline_error);
  CHECK(bad.pipeline_error.find("a view reuses its source's memory") != std::string::npos);
}

TEST_CASE("a stage with other results or a new race fails the file although the expected "
          "error holds",
          "[tools][stages]") {
  // The first data set ends in the assume's error everywhere; on the second, a merge that
  // ignores lifetimes puts ys in ws's block while the kernel still reads ws's neighbours.
  const std::string text = "def f (n : i64) (xs : [n]i64) : ([n]i64) =\n"
                           "  assume n > 1\n"
                           "  let (ws : [n]i64) = iota n\n"
                           "  let (ys : [n]i64) = kernel i < n do\n"
                           "    let j = (i + 1) % n\n"
                           "    let (u : i64) = ws[j]\n"
                           "    in (u)\n"
                           "  let (zs : [n]i64) = kernel i < n do\n"
                           "    let k = (i + 1) % n\n"
                           "    let (y : i64) = ys[k]\n"
                           "    let (x : i64) = xs[i]\n"
                           "    let z = x + y\n"
                           "    in (z)\n"
                           "  in (zs)\n"
                           "-- input: n=1\n"
                           "-- input: n=4 xs=[1, 2, 3, 4]\n"
                           "-- expect: error assume\n";
  CheckReport ok = check_source("neighbours.fun", text);
  INFO(joined(ok.stage_mismatches));
  CHECK(ok.ok());
  CHECK(ok.stage_mismatches.empty());
  CheckOptions broken;
  REQUIRE(set_broken_variant(broken.passes, "merge-no-interference"));
  CheckReport bad = check_source("neighbours.fun", text, broken);
  INFO(joined(bad.stage_mismatches));
  REQUIRE(bad.expectations.size() == 1);
  CHECK(bad.expectations[0].status == ExpectStatus::Holds);
  CHECK_FALSE(bad.ok());
  CHECK(has_line(bad.stage_mismatches, "input at line 16 after merge: stage merge's results "
                                       "differ from the source's at result 1["));
  CHECK(has_line(bad.stage_mismatches,
                 "input at line 16 after merge: stage merge has a data race that the source "
                 "does not have: data race in the kernel at 4:23"));
  // IMP is compared too.
  CHECK(has_line(bad.stage_mismatches, "input at line 16 after to-imp: stage to-imp's results "
                                       "differ from the source's at result 1["));
  CHECK(has_line(bad.stage_mismatches, "input at line 16 after to-imp: stage to-imp has a data "
                                       "race that the source does not have"));
  // The stages before merge agree, and the data set with the error agrees everywhere.
  CHECK_FALSE(has_line(bad.stage_mismatches, "input at line 15"));
  CHECK_FALSE(has_line(bad.stage_mismatches, "input at line 16 after sc"));
}

TEST_CASE("a FUNMEM source's sc stage is compared with the source's heap run on every data set",
          "[tools][stages][sc]") {
  // Without its non-overlap checks sc builds x in row 1 of ys before the loop reads it.
  const std::string text =
      "def target_row (m : i64) (n : i64) (ysm : mem) (ys0 : [m][n]i64 @ysm -> R(m, n)) : "
      "(mem, [m][n]i64, i64) =\n"
      "  assume m > 1 && n > 0\n"
      "  let (xm : mem) = alloc n\n"
      "  let (x : [n]i64 @xm -> R(n)) = iota n\n"
      "  let z = 0\n"
      "  let (s : i64) = loop (acc : i64) = (z) for j < n do\n"
      "    let (v : i64) = ys0[1, j]\n"
      "    let w = acc + v\n"
      "    in (w)\n"
      "  let (ys : [m][n]i64 @ysm -> R(m, n)) = ys0 with [1] = x\n"
      "  in (ysm, ys, s)\n"
      "-- input: m=1 n=4\n"
      "-- input: m=3 n=4 ys0=[[1, 1, 1, 1], [5, 5, 5, 5], [2, 2, 2, 2]]\n"
      "-- expect: error assume\n";
  CheckReport ok = check_source("target-row.funmem", text);
  INFO(joined(ok.stage_mismatches));
  CHECK(ok.ok());
  CheckOptions broken;
  REQUIRE(set_broken_variant(broken.passes, "sc-no-overlap"));
  CheckReport bad = check_source("target-row.funmem", text, broken);
  INFO(joined(bad.stage_mismatches));
  REQUIRE(bad.sc);
  CHECK(bad.sc->proved_points() == 1);
  CHECK_FALSE(bad.ok());
  // sc differs, and so does every stage after it (each is compared with the source).
  REQUIRE(bad.stage_mismatches.size() == 6);
  CHECK(bad.stage_mismatches[0] == "input at line 13 after sc: stage sc's results differ from "
                                   "the source's at result 3: value semantics 20, heap "
                                   "semantics 6");
  CHECK(bad.stage_mismatches[4].rfind("input at line 13 after expand-cpu: ", 0) == 0);
  CHECK(bad.stage_mismatches[5].rfind("input at line 13 after to-imp: ", 0) == 0);
  // An invalid source (b reuses the block of a, which is still a result) is its stages'
  // reference: its own heap results, which sc keeps, and which the broken sc changes.
  const std::string invalid =
      "def target_row (m : i64) (n : i64) (ysm : mem) (ys0 : [m][n]i64 @ysm -> R(m, n)) : "
      "(mem, [m][n]i64, i64, mem, [n]i64, mem, [n]i64) =\n"
      "  assume m > 1 && n > 0\n"
      "  let (cm : mem) = alloc n\n"
      "  let (a : [n]i64 @cm -> R(n)) = iota n\n"
      "  let (b : [n]i64 @cm -> R(n)) = replicate n 7\n"
      "  let (xm : mem) = alloc n\n"
      "  let (x : [n]i64 @xm -> R(n)) = iota n\n"
      "  let z = 0\n"
      "  let (s : i64) = loop (acc : i64) = (z) for j < n do\n"
      "    let (v : i64) = ys0[1, j]\n"
      "    let w = acc + v\n"
      "    in (w)\n"
      "  let (ys : [m][n]i64 @ysm -> R(m, n)) = ys0 with [1] = x\n"
      "  in (ysm, ys, s, cm, a, cm, b)\n"
      "-- input: m=1 n=4\n"
      "-- input: m=3 n=4 ys0=[[1, 1, 1, 1], [5, 5, 5, 5], [2, 2, 2, 2]]\n"
      "-- expect: error assume\n";
  CheckReport inv = check_source("clobber.funmem", invalid);
  INFO(joined(inv.stage_mismatches));
  // Per data set: the source, then sc, merge, hoist, expand, expand-cpu and to-imp.
  REQUIRE(inv.runs.size() == 14);
  // The source's heap run differs from the value semantics, and every stage's alike.
  REQUIRE(inv.runs[7].mismatch);
  CHECK(*inv.runs[7].mismatch == "result 5[0]: value semantics 0, heap semantics 7");
  CHECK(inv.runs[8].stage == "sc");
  CHECK(inv.runs[12].stage == "expand-cpu");
  for (size_t k = 8; k < 13; ++k)
    CHECK(inv.runs[k].mismatch == inv.runs[7].mismatch);
  // IMP has no memory results: a's block is its third.
  CHECK(inv.runs[13].stage == "to-imp");
  CHECK(inv.runs[13].mismatch == "result 3[0]: value semantics 0, IMP 7");
  CHECK(inv.stage_mismatches.empty());
  CHECK(inv.ok());
  CheckReport inv_bad = check_source("clobber.funmem", invalid, broken);
  INFO(joined(inv_bad.stage_mismatches));
  CHECK_FALSE(inv_bad.ok());
  REQUIRE(inv_bad.stage_mismatches.size() == 6);
  CHECK(inv_bad.stage_mismatches[5] == "input at line 16 after to-imp: stage to-imp's results "
                                       "differ from the source's at result 2: source 20, stage "
                                       "to-imp 6");
  CHECK(inv_bad.stage_mismatches[0] == "input at line 16 after sc: stage sc's results differ "
                                       "from the source's at result 3: source 20, stage sc 6");
}

TEST_CASE("a pipeline that stops fails the file whatever it expects", "[tools][stages]") {
  // fun-to-funmem cannot lay out a [n][2^62][4] array (its row stride is 2^64); the
  // value semantics ends in the expected bounds error (n = 0).
  const std::string text = "def big (n : i64) : (i64) =\n"
                           "  let (a : [n][4611686018427387904][4]i64) = scratch\n"
                           "  let (s : i64) = a[0, 0, 0]\n"
                           "  in (s)\n"
                           "-- input: n=0\n"
                           "-- expect: error bounds\n";
  CheckReport r = check_source("big.fun", text);
  REQUIRE(r.expectations.size() == 1);
  CHECK(r.expectations[0].status == ExpectStatus::Holds);
  CHECK(r.pipeline_error.find("stage fun-to-funmem: symbolic overflow") == 0);
  REQUIRE_FALSE(r.stage_mismatches.empty());
  CHECK(r.stage_mismatches[0] == "the pipeline stops: " + r.pipeline_error);
  CHECK_FALSE(r.ok());
}

TEST_CASE("an IMP run's error is named as IMP's, the others as the heap semantics'",
          "[tools][stages]") {
  const std::string text = "def f (n : i64) (xs : [n]i64) : (i64) =\n"
                           "  let (s : i64) = xs[n]\n"
                           "  in (s)\n"
                           "-- input: n=2\n"
                           "-- expect: error bounds\n";
  CheckReport r = check_source("oob.fun", text);
  CHECK(r.ok());
  int imp = 0, heap = 0;
  for (const DataSetRun& d : r.runs) {
    if (!d.heap_ran) continue;
    REQUIRE(d.heap_error);
    CHECK(d.heap_error->kind == "bounds");
    const std::string name = d.memory_semantics();
    CHECK(name == (d.stage == "to-imp" ? "IMP" : "heap semantics"));
    (d.stage == "to-imp" ? imp : heap) += 1;
  }
  CHECK(imp == 1);
  CHECK(heap >= 5);
}

TEST_CASE("resource errors are the interpreter's limits: compared one way only",
          "[tools][stages]") {
  // The source runs out of memory at the iota; after sc the update's bounds check runs
  // first and ends with a bounds error. A source that runs out has no end to reproduce.
  const std::string moved = "def slice (n : i64) (k : i64) (dst : [n]i64) : ([n]i64) =\n"
                            "  assume k >= 0 && k <= 1000\n"
                            "  let (src : [k]i64) = iota k\n"
                            "  let (r : [n]i64) = dst with [1 : k] = src\n"
                            "  in (r)\n"
                            "-- input: n=2 k=100 dst=[1, 2]\n"
                            "-- expect: error resource\n";
  CheckOptions small;
  small.limits.max_memory_bytes = 800;
  CheckReport r = check_source("slice.fun", moved, small);
  INFO(joined(r.stage_mismatches));
  REQUIRE(r.sc);
  CHECK(r.sc->proved_points() == 1);
  bool bounds_after_sc = false;
  for (const DataSetRun& d : r.runs)
    bounds_after_sc |= d.stage == "sc" && d.heap_error && d.heap_error->kind == "bounds";
  CHECK(bounds_after_sc);
  CHECK(r.stage_mismatches.empty());
  CHECK(r.ok());
  // A stage that runs out where the source has results differs: the heap semantics
  // keeps every block of the body alive, the value semantics drops `a` after its read.
  const std::string more = "def f (n : i64) : ([n]i64) =\n"
                           "  let (a : [n]i64) = iota n\n"
                           "  let (s : i64) = a[0]\n"
                           "  let (b : [n]i64) = replicate n s\n"
                           "  let (c : [n]i64) = copy b\n"
                           "  in (c)\n"
                           "-- input: n=10\n";
  small.limits.max_memory_bytes = 400;
  CheckReport m = check_source("more.fun", more, small);
  REQUIRE_FALSE(m.stage_mismatches.empty());
  CHECK(m.stage_mismatches[0].find("stage fun-to-funmem ends with the resource error") !=
        std::string::npos);
  CHECK_FALSE(m.ok());
}
