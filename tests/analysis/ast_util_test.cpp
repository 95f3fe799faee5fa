// Tests of analysis/ast_util.h: fresh names, the run-time injectivity condition.
#include "analysis/ast_util.h"
#include "interp/scalar.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <map>
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

namespace {

__extension__ typedef __int128 Wide; // NOLINT(modernize-use-using): __extension__ needs it

/// lmad_injective(dims) evaluated with counts c and strides s bound to names.
bool injective_condition(const std::vector<int64_t>& c, const std::vector<int64_t>& s) {
  std::vector<std::pair<funmem::SExpP, funmem::SExpP>> dims;
  std::map<std::string, int64_t> env;
  for (size_t k = 0; k < c.size(); ++k) {
    const std::string cn = "c" + std::to_string(k), sn = "s" + std::to_string(k);
    env[cn] = c[k];
    env[sn] = s[k];
    dims.emplace_back(funmem::mk_var(cn, {}), funmem::mk_var(sn, {}));
  }
  funmem::SExpP cond = funmem::lmad_injective(dims, {});
  funmem::Scalar v = funmem::eval_sexp(*cond, [&](const std::string& n, funmem::Pos) {
    return funmem::Scalar::of_int(funmem::ScalarType::I64, env.at(n));
  });
  return v.i != 0;
}

/// Whether two points of the LMAD share a cell, by enumeration.
bool shares_a_cell(const std::vector<int64_t>& c, const std::vector<int64_t>& s) {
  size_t points = 1;
  for (int64_t n : c) {
    if (n <= 0) return false;
    points *= static_cast<size_t>(n);
  }
  std::set<Wide> seen;
  std::vector<int64_t> idx(c.size(), 0);
  for (size_t t = 0; t < points; ++t) {
    Wide off = 0;
    for (size_t k = 0; k < c.size(); ++k)
      off += static_cast<Wide>(idx[k]) * s[k];
    if (!seen.insert(off).second) return true;
    for (size_t k = c.size(); k-- > 0;)
      if (++idx[k] < c[k]) break;
      else idx[k] = 0;
  }
  return false;
}

} // namespace

TEST_CASE("the run-time injectivity condition of an LMAD never holds where two points share a "
          "cell",
          "[analysis][lmad][property]") {
  rc::prop("lmad_injective(dims) => distinct cells (enumeration)", [] {
    const int rank = *rc::gen::inRange(1, 4);
    std::vector<int64_t> c, s;
    for (int k = 0; k < rank; ++k) {
      c.push_back(*rc::gen::inRange<int64_t>(-1, 5));
      s.push_back(*rc::gen::inRange<int64_t>(-7, 8));
    }
    if (injective_condition(c, s)) RC_ASSERT(!shares_a_cell(c, s));
  });
}

TEST_CASE("the run-time injectivity condition: nested strides in either order, no overflow",
          "[analysis][lmad]") {
  CHECK(injective_condition({4, 3}, {3, 1}));        // row-major 4 x 3
  CHECK(injective_condition({3, 4}, {1, 3}));        // its transposition (the reverse order)
  CHECK(injective_condition({0, 3}, {0, 0}));        // no point
  CHECK(injective_condition({1, 5}, {0, 1}));        // a 0 stride over one point
  CHECK_FALSE(injective_condition({2}, {0}));        // two points, one cell
  CHECK_FALSE(injective_condition({3, 2}, {1, 2})); // 0+2 == 2+0
  CHECK_FALSE(injective_condition({3, 2}, {2, 3})); // injective but not nested: sequential
  // Strides and counts near 2^63: false (the safe path), and evaluating does not overflow.
  CHECK_FALSE(injective_condition({2, 2}, {INT64_MIN, INT64_MAX}));
  CHECK_FALSE(injective_condition({INT64_MAX, 2}, {1, INT64_MAX}));
  CHECK(injective_condition({2, (int64_t{1} << 27)}, {(int64_t{1} << 27), 1}));
}
