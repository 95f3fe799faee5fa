// Tests of analysis/ast_util.h: fresh names.
#include "analysis/ast_util.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <set>
#include <string>
#include <vector>

using funmem::FreshNames;

TEST_CASE("fresh names: the base, then the smallest free numbered name", "[analysis][names]") {
  FreshNames fresh({"t", "t2", "t4", "x"});
  CHECK(fresh("t") == "t3");
  CHECK(fresh("t") == "t5");
  CHECK(fresh("y") == "y");
  CHECK(fresh("y") == "y2");
  CHECK(fresh("x") == "x2");
  CHECK(fresh("t") == "t6");
  CHECK(funmem::fresh_name({"t", "t2", "t4"}, "t") == "t3");
  CHECK(funmem::fresh_name({"t2"}, "t") == "t");
}

TEST_CASE("fresh names agree with a rescan of every name taken", "[analysis][names][property]") {
  rc::prop("fresh(base) == the first free of base, base2, base3, ...", [] {
    // Bases that collide with each other's numbered names ("a1" + "2" == "a" + "12").
    const std::vector<std::string> bases = {"a", "a1", "b", "t"};
    std::set<std::string> taken;
    const int preset = *rc::gen::inRange(0, 12);
    for (int k = 0; k < preset; ++k)
      taken.insert(*rc::gen::elementOf(bases) + std::to_string(*rc::gen::inRange(1, 15)));
    FreshNames fresh(taken);
    const int calls = *rc::gen::inRange(1, 40);
    for (int c = 0; c < calls; ++c) {
      const std::string base = *rc::gen::elementOf(bases);
      std::string want = base;
      for (int k = 2; taken.count(want); ++k)
        want = base + std::to_string(k);
      taken.insert(want);
      RC_ASSERT(fresh(base) == want);
    }
  });
}
