// Tests of the FUNMEM mutants (verifier/mutate.h): every mutant is a well-typed FUNMEM
// program that differs from the lowered one, every kind of change is made, and a mutant
// whose block is too small ends as its own heap semantics does in every stage.
#include "verifier/mutate.h"

#include "analysis/fun_to_funmem.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"
#include "verifier/fuzz.h"
#include "verifier/gen.h"

#include <catch2/catch.hpp>

#include <set>

using namespace funmem;

TEST_CASE("FUNMEM mutants are well typed, changed, and of every kind", "[fuzz][mutate]") {
  std::set<std::string> kinds;
  int made = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const std::string fun = generate_fun(seed);
    auto m = funmem_mutant(fun, seed);
    if (!m) continue;
    ++made;
    INFO(m->text);
    ParseResult r = parse_program(m->text, Lang::FunMem);
    REQUIRE(r.program);
    CHECK(typecheck(*r.program).empty());
    auto plain = fun_to_funmem(*parse_program(fun, Lang::Fun).program);
    REQUIRE(plain);
    CHECK_FALSE(r.program->def == plain->def);
    for (const char* k :
         {"made smaller", "moved by", "moved into", "out of its kernel", "created in", "beside"})
      if (m->what.find(k) != std::string::npos) kinds.insert(k);
  }
  CHECK(made >= 50);
  CHECK(kinds.size() == 6);
}

TEST_CASE("a mutant is judged against its own heap semantics", "[fuzz][mutate]") {
  // The block is one cell too small: the source ends with a bounds error at the iota,
  // and so must every stage (sc may not build a elsewhere, where it would fit).
  const std::string text = "def f (n : i64) : (mem, [n]i64) =\n"
                           "  assume n >= 1 && n <= 100\n"
                           "  let (cm : mem) = alloc n\n"
                           "  let (am : mem) = alloc n - 1\n"
                           "  let (a : [n]i64 @am -> R(n)) = iota n\n"
                           "  let (c : [n]i64 @cm -> R(n)) = copy a\n"
                           "  in (cm, c)\n"
                           "-- input: n=3\n";
  FuzzOutcome o = fuzz_program(text, {}, Lang::FunMem);
  INFO(o.check << ": " << o.detail);
  CHECK(o.ok);
  PassOptions broken;
  REQUIRE(set_broken_variant(broken, "sc-outside-block"));
  FuzzOutcome b = fuzz_program(text, broken, Lang::FunMem);
  CHECK_FALSE(b.ok);
  CHECK(b.check == "stages differ");
}
