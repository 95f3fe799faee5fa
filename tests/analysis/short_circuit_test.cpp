// Short-circuiting (analysis/short_circuit.h): every corpus program's refusals are the
// ones its `-- refuses:` lines name, the thesis' examples come out as in chapter 6, a
// run-time bounds error survives the pass, and on random straight-line programs the
// pass succeeds exactly when no later use of the destination meets the source's place
// (decided by running both semantics, not by the prover).
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"
#include "ir/unmem.h"
#include "tests/analysis/pass_util.h"

#include "tests/corpus_util.h"
#include "tests/test_util.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <filesystem>
#include <map>
#include <sstream>

using namespace funmem;
namespace fs = std::filesystem;

namespace {

/// The properties of the `-- refuses: PROPERTY` lines of a file, sorted.
std::vector<std::string> refuses_lines(const fs::path& f) {
  std::vector<std::string> out;
  std::istringstream in(test::slurp(f));
  std::string line;
  const std::string tag = "-- refuses: ";
  while (std::getline(in, line))
    if (line.rfind(tag, 0) == 0) out.push_back(line.substr(tag.size()));
  std::sort(out.begin(), out.end());
  return out;
}

/// The FUNMEM program sc works on: the file itself, or fun-to-funmem's output.
std::optional<Program> funmem_of(const Program& p) {
  if (p.lang == Lang::FunMem) return p;
  test::PassResult r = test::run_pass("fun-to-funmem", p);
  return r.program;
}

/// A corpus file, parsed (in the language its extension names).
Program load(const std::string& rel) {
  fs::path f = fs::path(FUNMEM_SOURCE_DIR) / "corpus" / rel;
  ParseResult r = parse_program(test::slurp(f), lang_of_path(f.string()));
  INFO(f.string());
  REQUIRE(r.program);
  return *r.program;
}

ScReport sc_of(const Program& mem, Program* out = nullptr) {
  test::PassResult r = test::run_pass("sc", mem);
  INFO(r.error);
  REQUIRE(r.program);
  REQUIRE(r.sc);
  if (out) *out = *r.program;
  return *r.sc;
}

} // namespace

TEST_CASE("sc: every refusal in the corpus is the one the file names", "[passes][sc]") {
  for (Lang lang : {Lang::Fun, Lang::FunMem})
    for (const test::CorpusProgram& c : test::well_typed_corpus(lang)) {
      INFO(c.path.string());
      auto mem = funmem_of(c.program);
      if (!mem) continue; // fun-to-funmem refuses it (its own tests cover that)
      ScReport rep = sc_of(*mem);
      std::vector<std::string> got;
      for (const ScAttempt& a : rep.attempts)
        if (!a.proved) {
          INFO(sc_report_text(rep));
          CHECK(!a.reason.empty());
          got.push_back(a.property);
        }
      std::sort(got.begin(), got.end());
      INFO(sc_report_text(rep));
      CHECK(got == refuses_lines(c.path));
    }
}

TEST_CASE("sc: an in-place scalar map needs a unique array (6.9)", "[passes][sc]") {
  for (auto [name, maps] :
       {std::pair{"scalar-map-in-place.funmem", 1}, std::pair{"scalar-map-not-unique.funmem", 0}}) {
    INFO(name);
    Program out;
    ScReport rep = sc_of(load(std::string("sc/") + name), &out);
    CHECK(rep.scalar_maps() == maps);
    CHECK(rep.proved_points() == 0);
    std::string printed = print_program(out);
    CHECK((printed.find("alloc") == std::string::npos) == (maps == 1));
  }
}

TEST_CASE("sc: listing 6.2 asks the thesis' question U^{!=i} against 9 + 9i", "[passes][sc]") {
  Program out;
  ScReport rep = sc_of(load("thesis/listing-6.2-antidiag.funmem"), &out);
  REQUIRE(rep.proved_points() == 1);
  std::string text = sc_report_text(rep);
  INFO(text);
  // The thesis writes U^{<i} = 9 + {(i : 9)} and U^{>i} = 9i + 18 + {(10 - i - 1 : 9)}.
  CHECK(text.find("9 + {(i : 9)}: disjoint") != std::string::npos);
  CHECK(text.find("9*i + 18 + {(-i + 9 : 9)}: disjoint") != std::string::npos);
  // x now lives in ys's block at the anti-diagonal; its own allocation is gone.
  std::string printed = print_program(out);
  CHECK(printed.find("alloc 10") == std::string::npos);
  CHECK(printed.find("(x : [10]i64 @ys0_mem -> 9 + {(10 : 9)})") != std::string::npos);
}

TEST_CASE("sc: the NW chain row -> blk -> upd -> a leaves no temporary block", "[passes][sc]") {
  const Program p = load("nw/nw-full.funmem");
  Program out;
  ScReport rep = sc_of(p, &out);
  INFO(sc_report_text(rep));
  CHECK(rep.proved_points() == 3);
  std::string printed = print_program(out);
  INFO(printed);
  CHECK(printed.find("alloc") == std::string::npos);
  for (const InputSet& set : p.inputs) {
    Inputs in = make_inputs(p.def, &set, 3);
    RunResult before = run_program(p, Semantics::Heap, in);
    RunResult after = run_program(out, Semantics::Heap, in);
    REQUIRE(!before.error);
    REQUIRE(!after.error);
    CHECK(after.races.empty());
    CHECK(!compare_results(before.results, after.results));
    CHECK(after.stats.copied_elems == 0);
    CHECK(after.stats.elided_elems == before.stats.copied_elems);
    CHECK(after.stats.peak_bytes < before.stats.peak_bytes);
  }
}

TEST_CASE("sc: an update outside the destination still ends in its bounds error", "[passes][sc]") {
  // The place is not provably inside: the check moves to the source's creation, and a
  // failing input ends with the update's own error, before anything is written.
  for (const char* name : {"bounds-checked-at-creation.funmem", "update-out-of-bounds.fun",
                           "bounds-slice-checked.fun"}) {
    INFO(name);
    const Program p = load(std::string("sc/") + name);
    auto mem = funmem_of(p);
    REQUIRE(mem);
    Program out;
    ScReport rep = sc_of(*mem, &out);
    CHECK(rep.proved_points() == 1);
    bool asserted = false;
    for (const Stmt& st : out.def.body.stmts)
      if (const auto* a = std::get_if<SAssume>(&st.node))
        asserted = asserted || a->kind == "bounds";
    CHECK(asserted);
    REQUIRE(!p.inputs.empty());
    Inputs in = make_inputs(p.def, &p.inputs[0], 1);
    RunResult v = run_program(*mem, Semantics::Value, in);
    RunResult h = run_program(out, Semantics::Heap, in);
    REQUIRE(v.error);
    REQUIRE(h.error);
    CHECK(h.error->kind == "bounds");
    CHECK(h.error->pos.line == v.error->pos.line);
    CHECK(h.error->pos.col == v.error->pos.col);
    // Before sc the source is written in its own block before the update fails; after
    // it, nothing is written but the inputs.
    RunResult h0 = run_program(*mem, Semantics::Heap, in);
    CHECK(h.stats.writes < h0.stats.writes);
  }
  // A statement between the creation and the update that may fail first keeps the
  // check where it is.
  for (const char* name : {"bounds-check-blocked.fun", "refuse-bounds-late-assume.fun"}) {
    INFO(name);
    auto mem = funmem_of(load(std::string("sc/") + name));
    REQUIRE(mem);
    CHECK(sc_of(*mem).proved_points() == 0);
  }
}

// Listing 6.1's shape with random positions: x (a row) is created, then the destination
// is read at (ra, ca) and written at (wa, wc), then x goes to row `row`. sc must succeed
// exactly when neither access touches that row, and the result must be valid.
TEST_CASE("sc: random straight-line programs are short-circuited exactly when safe",
          "[passes][sc][property]") {
  rc::prop("proved iff no later use meets the place; the result is valid", [] {
    const int m = *rc::gen::inRange(2, 5);
    const int n = *rc::gen::inRange(1, 4);
    const int row = *rc::gen::inRange(0, m);
    const int ra = *rc::gen::inRange(0, m), ca = *rc::gen::inRange(0, n);
    const int wa = *rc::gen::inRange(0, m), wc = *rc::gen::inRange(0, n);
    const bool before = *rc::gen::arbitrary<bool>(); // accesses before x's creation
    std::ostringstream s;
    s << "def f (ysm : mem) (ys0 : [" << m << "][" << n << "]i64 @ysm -> R(" << m << ", " << n
      << ")) : (mem, [" << m << "][" << n << "]i64, i64) =\n";
    std::string acc = "  let (v : i64) = ys0[" + std::to_string(ra) + ", " + std::to_string(ca) +
                      "]\n  let (ys1 : [" + std::to_string(m) + "][" + std::to_string(n) +
                      "]i64 @ysm -> R(" + std::to_string(m) + ", " + std::to_string(n) +
                      ")) = ys0 with [" + std::to_string(wa) + ", " + std::to_string(wc) +
                      "] = 7\n";
    if (before) s << acc;
    s << "  let (xm : mem) = alloc " << n << "\n  let (x : [" << n << "]i64 @xm -> R(" << n
      << ")) = iota " << n << "\n";
    if (!before) s << acc;
    s << "  let (ys : [" << m << "][" << n << "]i64 @ysm -> R(" << m << ", " << n
      << ")) = ys1 with [" << row << "] = x\n  in (ysm, ys, v)\n";
    ParseResult r = parse_program(s.str(), Lang::FunMem);
    RC_ASSERT(r.program.has_value());
    RC_ASSERT(typecheck(*r.program).empty());
    test::PassResult pr = test::run_pass("sc", *r.program);
    RC_ASSERT(pr.program.has_value());
    const bool safe = before || (ra != row && wa != row);
    RC_ASSERT(pr.sc->proved_points() == (safe ? 1 : 0));
    // Brute force: the heap semantics of the result against the value semantics.
    Inputs in = make_inputs(r.program->def, nullptr, 5);
    for (const Binding& b : r.program->def.params)
      if (b.type && b.type->kind == Type::Kind::Mem) in[b.name.s].is_mem = true;
    RunResult v = run_program(unmem(*r.program), Semantics::Value, in);
    RunResult h = run_program(*pr.program, Semantics::Heap, in);
    RC_ASSERT(!v.error);
    RC_ASSERT(!h.error);
    RC_ASSERT(h.races.empty());
    RC_ASSERT(!compare_results(v.results, h.results));
  });
}

// The destination created after the source (its replicate would overwrite the source):
// its allocation and replicate move above the source's creation exactly when nothing
// between reads the place the source goes to, and the result is valid. The source's
// kernel is i64 (it may overflow) or f32 (it cannot); the moved statements cannot fail
// either way.
TEST_CASE("sc: a destination created after the source moves above it when that is safe",
          "[passes][sc][property]") {
  rc::prop("hoisted and proved iff no read between meets the place; the result is valid", [] {
    const int n = *rc::gen::inRange(1, 4);
    const int m = n + *rc::gen::inRange(0, 3);
    const int off = *rc::gen::inRange(0, m - n + 1);
    const int j = *rc::gen::inRange(0, m); // a read of the destination before the update
    const bool read = *rc::gen::arbitrary<bool>();
    const bool f32 = *rc::gen::arbitrary<bool>();
    const std::string t = f32 ? "f32" : "i64", one = f32 ? "1.0f32" : "1",
                      zero = f32 ? "0.0f32" : "0";
    std::ostringstream s;
    s << "def f (xs : [" << n << "]" << t << ") : ([" << m << "]" << t << ", " << t << ") =\n"
      << "  let (t0 : [" << n << "]" << t << ") = kernel k < " << n << " do\n"
      << "    let (v : " << t << ") = xs[k]\n    let w = v + " << one << "\n    in (w)\n"
      << "  let (t1 : [" << m << "]" << t << ") = replicate " << m << " " << zero << "\n";
    if (read)
      s << "  let (u : " << t << ") = t1[" << j << "]\n";
    else
      s << "  let u = " << zero << "\n";
    s << "  let (t2 : [" << m << "]" << t << ") = t1 with [" << off << " : " << n << "] = t0\n"
      << "  in (t2, u)\n";
    ParseResult r = parse_program(s.str(), Lang::Fun);
    RC_ASSERT(r.program.has_value());
    RC_ASSERT(typecheck(*r.program).empty());
    test::PassResult mem = test::run_pass("fun-to-funmem", *r.program);
    RC_ASSERT(mem.program.has_value());
    test::PassResult pr = test::run_pass("sc", *mem.program);
    RC_ASSERT(pr.program.has_value());
    const bool safe = !read || j < off || j >= off + n;
    int hoisted = 0;
    for (const ScAttempt& a : pr.sc->attempts)
      if (a.proved && a.kind == ScKind::Update)
        for (const std::string& l : a.lifted)
          hoisted += l.find("the destination's creation") != std::string::npos;
    RC_ASSERT(hoisted == (safe ? 1 : 0));
    Inputs in = make_inputs(r.program->def, nullptr, 5);
    RunResult v = run_program(*r.program, Semantics::Value, in);
    Inputs hin = make_inputs(pr.program->def, nullptr, 5);
    for (const auto& [name, val] : in)
      hin[name] = val;
    for (const Binding& b : pr.program->def.params)
      if (b.type && b.type->kind == Type::Kind::Mem) hin[b.name.s].is_mem = true;
    RunResult h = run_program(*pr.program, Semantics::Heap, hin);
    RC_ASSERT(!v.error);
    RC_ASSERT(!h.error);
    RC_ASSERT(!compare_results(v.results, h.results));
  });
}

TEST_CASE("sc: a question a moved run-time bounds check answers needs no nonlinear proof",
          "[passes][sc]") {
  // The kernel's rows lie at a + s*t for t < k, and the update's check at the creation
  // (which divides, so as not to overflow) says that a + (k - 1) * s is inside: the
  // check's polynomial form is among the facts, so the answer does not rest on Z3's time.
  Program mem = *funmem_of(load("regress/sc-stride2d.fun"));
  ScReport rep = sc_of(mem);
  REQUIRE(rep.proved_points() == 2);
  for (const ScAttempt& a : rep.attempts) {
    INFO(sc_report_text(rep));
    CHECK(a.z3_calls == 0);
  }
}
