// Tests of analysis/ast_util.h: fresh names, the run-time injectivity condition, a
// slice's run-time bounds check.
#include "analysis/ast_util.h"
#include "interp/scalar.h"
#include "ir/printer.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <limits>
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
      if (++idx[k] < c[k])
        break;
      else
        idx[k] = 0;
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
  CHECK(injective_condition({4, 3}, {3, 1}));       // row-major 4 x 3
  CHECK(injective_condition({3, 4}, {1, 3}));       // its transposition (the reverse order)
  CHECK(injective_condition({0, 3}, {0, 0}));       // no point
  CHECK(injective_condition({1, 5}, {0, 1}));       // a 0 stride over one point
  CHECK_FALSE(injective_condition({2}, {0}));       // two points, one cell
  CHECK_FALSE(injective_condition({3, 2}, {1, 2})); // 0+2 == 2+0
  CHECK_FALSE(injective_condition({3, 2}, {2, 3})); // injective but not nested: sequential
  // Strides and counts near 2^63: false (the safe path), and evaluating does not overflow.
  CHECK_FALSE(injective_condition({2, 2}, {INT64_MIN, INT64_MAX}));
  CHECK_FALSE(injective_condition({INT64_MAX, 2}, {1, INT64_MAX}));
  CHECK(injective_condition({2, (int64_t{1} << 27)}, {(int64_t{1} << 27), 1}));
}

namespace {

/// slice_inside(start, count, stride, dim) evaluated by the interpreter's scalar
/// semantics (which throws where evaluating it fails: it never does).
bool slice_condition(int64_t start, int64_t count, int64_t stride, int64_t dim) {
  using namespace funmem;
  std::map<std::string, int64_t> env{{"a", start}, {"k", count}, {"s", stride}, {"m", dim}};
  SExpP cond = slice_inside(mk_var("a", {}), mk_var("k", {}), mk_var("s", {}), mk_var("m", {}));
  Scalar v = eval_sexp(
      *cond, [&](const std::string& n, Pos) { return Scalar::of_int(ScalarType::I64, env.at(n)); });
  return v.i != 0;
}

/// The polynomial form sc's facts give it: count <= 0, or the first and the last element
/// start + (count - 1) * stride in [0, dim), over the integers.
bool slice_polynomial(int64_t start, int64_t count, int64_t stride, int64_t dim) {
  if (count <= 0) return true;
  const Wide last = static_cast<Wide>(start) + static_cast<Wide>(count - 1) * stride;
  return 0 <= start && start < dim && 0 <= last && last < dim;
}

} // namespace

TEST_CASE("a slice's run-time bounds check holds exactly where every element is inside",
          "[analysis][property]") {
  // By enumeration of the elements on small values; the polynomial form agrees.
  for (int64_t start = -6; start <= 6; ++start)
    for (int64_t count = -2; count <= 6; ++count)
      for (int64_t stride = -4; stride <= 4; ++stride)
        for (int64_t dim = 0; dim <= 6; ++dim) {
          bool inside = true;
          for (int64_t i = 0; i < count; ++i)
            inside = inside && 0 <= start + i * stride && start + i * stride < dim;
          INFO(start << " " << count << " " << stride << " " << dim);
          REQUIRE(slice_condition(start, count, stride, dim) == inside);
          REQUIRE(slice_polynomial(start, count, stride, dim) == inside);
        }
  // Near 2^63 (the check computes nothing that overflows): both forms agree.
  rc::prop("slice_inside == its polynomial form", [] {
    const int64_t big = std::numeric_limits<int64_t>::max();
    auto any = rc::gen::oneOf(rc::gen::inRange<int64_t>(-8, 9), rc::gen::arbitrary<int64_t>(),
                              rc::gen::element(big, big - 1, -big, big / 2, big / 2 + 1));
    const int64_t start = *any, count = *any, stride = *any, dim = *any;
    RC_ASSERT(slice_condition(start, count, stride, dim) ==
              slice_polynomial(start, count, stride, dim));
  });
}

TEST_CASE("slice_inside_parts reads back the operands of slice_inside, and nothing else",
          "[analysis]") {
  using namespace funmem;
  SExpP start = mk_bin(BinOp::Mul, mk_var("a", {}), mk_int(2));
  SExpP cond = slice_inside(start, mk_var("k", {}), SExpP(), mk_var("m", {}));
  auto parts = slice_inside_parts(*cond);
  REQUIRE(parts);
  CHECK(print_sexp(*parts->start) == "a * 2");
  CHECK(print_sexp(*parts->count) == "k");
  CHECK(print_sexp(*parts->stride) == "1");
  CHECK(print_sexp(*parts->dim) == "m");
  // The same shape with one operator changed is not a slice's check.
  auto& top = std::get<SBinary>(cond->node);
  SExpP changed = mk_bin(BinOp::Or, mk_bin(BinOp::Lt, mk_var("k", {}), mk_int(0)), top.b);
  CHECK_FALSE(slice_inside_parts(*changed));
  CHECK_FALSE(slice_inside_parts(*mk_bin(BinOp::Le, mk_var("k", {}), mk_int(0))));
}
