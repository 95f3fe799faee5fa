// Golden tests of the parser's error messages (tests/golden/parse/NAME.input against
// NAME.expect), plus direct checks of positions and of hostile inputs.
#include "ir/parser.h"
#include "ir/printer.h"

#include "tests/test_util.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace funmem;
namespace fs = std::filesystem;
using funmem::test::slurp;

TEST_CASE("parser error messages match the golden files", "[ir][parser][golden]") {
  fs::path dir = fs::path(FUNMEM_SOURCE_DIR) / "tests" / "golden" / "parse";
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".input") continue;
    ++n;
    std::string text = slurp(e.path());
    fs::path expect = e.path();
    expect.replace_extension(".expect");
    INFO(e.path().filename().string());
    ParseResult r = parse_program(text, Lang::FunMem);
    REQUIRE(r.error.has_value());
    CHECK(format_diagnostic(*r.error, e.path().filename().string(), text) == slurp(expect));
  }
  CHECK(n >= 10);
}

TEST_CASE("positions point at the construct", "[ir][parser]") {
  std::string t = "def f (n : i64) : (i64) =\n  let x = n\n  let (y : i64) = n + 1\n  in (y)\n";
  ParseResult r = parse_program(t, Lang::Fun);
  REQUIRE(r.program);
  const auto& stmts = r.program->def.body.stmts;
  REQUIRE(stmts.size() == 2);
  CHECK(stmts[1].pos.line == 3);
  CHECK(stmts[1].pos.col == 3);
  const auto& let = std::get<SLet>(stmts[1].node);
  CHECK(let.exp.pos.col == 19);
  CHECK(let.pats[0].name.pos.col == 8);
  CHECK(r.program->def.body.pos.line == 4);
}

TEST_CASE("literals fold a leading minus and check ranges", "[ir][parser]") {
  auto e = parse_sexp("-9223372036854775808");
  REQUIRE(e);
  CHECK(std::get<Lit>((*e)->node).i == INT64_MIN);
  CHECK(!parse_sexp("9223372036854775808"));
  CHECK(!parse_sexp("2147483648i32"));
  CHECK(parse_sexp("-2147483648i32"));
  CHECK(!parse_sexp("1.5i32"));
  auto neg = parse_sexp("-(5)");
  REQUIRE(neg);
  CHECK(std::holds_alternative<SUnary>((*neg)->node));
  CHECK(print_sexp(**parse_sexp("a - -5 * (b + c)")) == "a - -5 * (b + c)");
  CHECK(print_sexp(**parse_sexp("(a < b) < c")) == "a < b < c");
  CHECK(print_sexp(**parse_sexp("a - (b - c)")) == "a - (b - c)");
}

TEST_CASE("directives are read even when the definition does not parse", "[ir][parser]") {
  ParseResult r = parse_program("def f : (i64) = in (\n-- expect: error parse\n", Lang::Fun);
  REQUIRE(r.error);
  REQUIRE(r.expects.size() == 1);
  CHECK(r.expects[0].arg == "parse");
}

TEST_CASE("hostile inputs give an error, never a crash", "[ir][parser][property]") {
  CHECK(parse_program(std::string(100000, '('), Lang::Fun).error);
  CHECK(parse_program("def f : (i64) = let x = " + std::string(5000, '-') + "1 in (x)", Lang::Fun)
            .error);
  std::string deep = "def f : (i64) =\n";
  for (int i = 0; i < 5000; ++i)
    deep += "let (x : [1]) = kernel i < 1 do\n";
  CHECK(parse_program(deep, Lang::Fun).error);
  rc::prop("random bytes", [] {
    auto bytes = *rc::gen::container<std::string>(rc::gen::arbitrary<char>());
    ParseResult r = parse_program("def f (n : i64) : (i64) =\n" + bytes, Lang::FunMem);
    RC_ASSERT(r.program.has_value() != r.error.has_value());
  });
  rc::prop("random tokens", [] {
    auto toks = *rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
        "let", "(", ")", "[", "]", "x", ":", "=", "in", "kernel", "<", "do", "+", "{", "}", "@",
        "->", "R", "i64", "1", ",", "with", "loop", "for", "if", "then", "else", "-", "!"));
    std::string s = "def f (n : i64) : (i64) =";
    for (const auto& t : toks)
      s += " " + t;
    ParseResult r = parse_program(s, Lang::FunMem);
    RC_ASSERT(r.program.has_value() != r.error.has_value());
  });
}
