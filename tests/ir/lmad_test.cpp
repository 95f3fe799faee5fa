// Property tests of the LMAD algebra (ir/lmad.h) against brute-force enumeration of
// index mappings and point sets on small shapes. Symbolic operations are checked by
// evaluating both sides under random assignments of the names they mention.
#include "ir/lmad.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <set>

using namespace funmem;

namespace {

using Env = std::map<std::string, int64_t>;

int64_t ev(const Poly& p, const Env& env) {
  auto v = p.eval(env);
  RC_ASSERT(v.has_value());
  return *v;
}

/// A random LMAD with small counts (1..4) and strides (-6..6), rank 0..3.
SymLmad gen_lmad(int min_rank = 0, int max_rank = 3, int64_t min_count = 1) {
  SymLmad l;
  l.offset = *rc::gen::inRange<int64_t>(-10, 11);
  int rank = *rc::gen::inRange(min_rank, max_rank + 1);
  for (int k = 0; k < rank; ++k)
    l.dims.emplace_back(*rc::gen::inRange<int64_t>(min_count, 5),
                        *rc::gen::inRange<int64_t>(-6, 7));
  return l;
}

/// A symbolic LMAD over n, m: each component is a small affine combination.
Poly gen_affine() {
  return Poly(*rc::gen::inRange<int64_t>(-3, 4)) +
         Poly(*rc::gen::inRange<int64_t>(-2, 3)) * Poly::var("n") +
         Poly(*rc::gen::inRange<int64_t>(-2, 3)) * Poly::var("m");
}

ConcreteLmad concrete(const SymLmad& l, const Env& env = {}) {
  auto c = lmad_eval(l, env);
  RC_ASSERT(c.has_value());
  return *c;
}

std::vector<int64_t> points(const SymLmad& l, const Env& env = {}) {
  auto p = concrete(l, env).points(100000);
  RC_ASSERT(p.has_value());
  return *p;
}

/// Every index tuple of the given counts, in row-major order.
std::vector<std::vector<int64_t>> domain(const std::vector<int64_t>& counts) {
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> idx(counts.size(), 0);
  for (int64_t c : counts)
    if (c <= 0) return out;
  for (;;) {
    out.push_back(idx);
    size_t k = counts.size();
    while (k > 0) {
      --k;
      if (++idx[k] < counts[k]) break;
      idx[k] = 0;
      if (k == 0) return out;
    }
    if (counts.empty()) return out;
  }
}

std::vector<int64_t> counts_of(const ConcreteLmad& c) {
  std::vector<int64_t> out;
  for (auto& d : c.dims)
    out.push_back(d.first);
  return out;
}

std::vector<Poly> polys(const std::vector<int64_t>& v) {
  return {v.begin(), v.end()};
}

} // namespace

TEST_CASE("LMAD application, fix and slices agree with index arithmetic", "[lmad]") {
  rc::prop("fix(L, k)(y) == L(k, y)", [] {
    SymLmad l = gen_lmad(1);
    int64_t k = *rc::gen::inRange<int64_t>(0, ev(l.dims[0].first, {}));
    ConcreteLmad f = concrete(lmad_fix(l, k));
    for (auto& y : domain(counts_of(f))) {
      std::vector<int64_t> ky = {k};
      ky.insert(ky.end(), y.begin(), y.end());
      RC_ASSERT(f.apply(y) == concrete(l).apply(ky));
    }
  });
  rc::prop("slice'(L, [x:y:z])(j) == L(x + j*z)", [] {
    SymLmad l = gen_lmad(1);
    std::vector<Triplet> t;
    size_t n = *rc::gen::inRange<size_t>(0, l.dims.size() + 1);
    for (size_t k = 0; k < n; ++k)
      t.push_back({*rc::gen::inRange<int64_t>(0, 4), *rc::gen::inRange<int64_t>(1, 4),
                   *rc::gen::inRange<int64_t>(-2, 3)});
    ConcreteLmad s = concrete(lmad_slice_strided(l, t));
    RC_ASSERT(s.dims.size() == l.dims.size());
    for (auto& j : domain(counts_of(s))) {
      std::vector<int64_t> orig = j;
      for (size_t k = 0; k < n; ++k)
        orig[k] = ev(t[k].start, {}) + j[k] * ev(t[k].stride, {});
      RC_ASSERT(s.apply(j) == concrete(l).apply(orig));
    }
    // slice is slice' with unit strides.
    std::vector<std::pair<Poly, Poly>> plain;
    for (auto& x : t)
      plain.emplace_back(x.start, x.count);
    std::vector<Triplet> unit;
    for (auto& x : t)
      unit.push_back({x.start, x.count, Poly(1)});
    RC_ASSERT(lmad_slice(l, plain) == lmad_slice_strided(l, unit));
  });
  rc::prop("slice_LMAD(L, L')(y) == L(L'(y)) on one-dimensional L", [] {
    SymLmad outer = gen_lmad(1, 1), inner = gen_lmad(0, 3);
    ConcreteLmad r = concrete(lmad_compose(outer, inner));
    for (auto& y : domain(counts_of(r)))
      RC_ASSERT(r.apply(y) == concrete(outer).apply({concrete(inner).apply(y)}));
  });
  rc::prop("slice_LMADS(L, L1..Lq)(y1.., yq..) == L(L1(y1..), ..., Lq(yq..))", [] {
    SymLmad l = gen_lmad(1, 2);
    std::vector<SymLmad> per;
    for (size_t k = 0; k < l.dims.size(); ++k)
      per.push_back(gen_lmad(0, 2));
    auto r = lmad_slice_lmads(l, per);
    RC_ASSERT(r.has_value());
    ConcreteLmad c = concrete(*r);
    for (auto& y : domain(counts_of(c))) {
      std::vector<int64_t> orig;
      size_t at = 0;
      for (auto& p : per) {
        std::vector<int64_t> part(y.begin() + static_cast<long>(at),
                                  y.begin() + static_cast<long>(at + p.dims.size()));
        orig.push_back(concrete(p).apply(part));
        at += p.dims.size();
      }
      RC_ASSERT(c.apply(y) == concrete(l).apply(orig));
    }
    per.pop_back();
    RC_ASSERT(!lmad_slice_lmads(l, per).has_value());
  });
  rc::prop("symbolic slices evaluate like concrete ones", [] {
    SymLmad l;
    l.offset = gen_affine();
    l.dims = {{Poly::var("n"), gen_affine()}, {Poly::var("m"), gen_affine()}};
    Poly i = gen_affine();
    Env env = {{"n", *rc::gen::inRange<int64_t>(1, 5)}, {"m", *rc::gen::inRange<int64_t>(1, 5)}};
    ConcreteLmad a = concrete(lmad_fix(l, i), env);
    ConcreteLmad b = concrete(lmad_fix(lmad_substitute(l, {}), Poly(ev(i, env))), env);
    RC_ASSERT(a.offset == b.offset);
    RC_ASSERT(a.dims == b.dims);
  });
}

TEST_CASE("a slice's stride beyond 64 bits is kept only where its dimension holds one element",
          "[lmad]") {
  const int64_t big = int64_t{1} << 62;
  SymLmad l;
  l.offset = Poly(3);
  l.dims = {{Poly(1), Poly(big)}};
  // [0 : 1 : 2]: one element, whose address the stride never changes.
  SymLmad one = lmad_index(l, {SymEntry{Poly(0), Poly(1), Poly(2)}});
  CHECK(one.offset == Poly(3));
  CHECK(one.dims == std::vector<std::pair<Poly, Poly>>{{Poly(1), Poly(big)}});
  SymLmad inner;
  inner.dims = {{Poly(0), Poly(4)}};
  CHECK(lmad_compose(l, inner).dims == std::vector<std::pair<Poly, Poly>>{{Poly(0), Poly(big)}});
  // Two elements, or a count not known to be at most one: the stride is needed.
  CHECK_THROWS_AS(lmad_index(l, {SymEntry{Poly(0), Poly(2), Poly(2)}}), SymbolicOverflow);
  CHECK_THROWS_AS(lmad_index(l, {SymEntry{Poly(0), Poly::var("m"), Poly(2)}}), SymbolicOverflow);
}

TEST_CASE("transpose and permute reorder indices", "[lmad]") {
  rc::prop("permute(L, p)(y) == L(x) with x[p[k]] = y[k]", [] {
    SymLmad l = gen_lmad(1, 3);
    std::vector<int> perm(l.dims.size());
    for (size_t k = 0; k < perm.size(); ++k)
      perm[k] = static_cast<int>(k);
    std::vector<int> p =
        *rc::gen::container<std::vector<int>>(perm.size(), rc::gen::arbitrary<int>());
    std::stable_sort(perm.begin(), perm.end(), [&](int a, int b) { return p[a] < p[b]; });
    auto r = lmad_permute(l, perm);
    RC_ASSERT(r.has_value());
    ConcreteLmad c = concrete(*r);
    for (auto& y : domain(counts_of(c))) {
      std::vector<int64_t> x(y.size());
      for (size_t k = 0; k < y.size(); ++k)
        x[perm[k]] = y[k];
      RC_ASSERT(c.apply(y) == concrete(l).apply(x));
    }
  });
  rc::prop("transpose == permute [1, 0, 2, ...]", [] {
    SymLmad l = gen_lmad(2, 3);
    std::vector<int> perm = {1, 0};
    if (l.dims.size() == 3) perm.push_back(2);
    RC_ASSERT(*lmad_permute(l, perm) == lmad_transpose(l));
  });
  SymLmad l = row_major({3, 4});
  CHECK_FALSE(lmad_permute(l, {0, 0}).has_value());
  CHECK_FALSE(lmad_permute(l, {0}).has_value());
  CHECK_FALSE(lmad_permute(l, {0, 2}).has_value());
}

TEST_CASE("row- and column-major layouts, unrank and reshape", "[lmad]") {
  rc::prop("R and C are bijections onto [0, N) in their orders", [] {
    std::vector<int64_t> shape = *rc::gen::container<std::vector<int64_t>>(
        *rc::gen::inRange<size_t>(0, 4), rc::gen::inRange<int64_t>(1, 5));
    ConcreteLmad r = concrete(row_major(polys(shape))), c = concrete(col_major(polys(shape)));
    int64_t next = 0;
    for (auto& y : domain(shape))
      RC_ASSERT(r.apply(y) == next++);
    // Column-major: the first index varies fastest.
    std::vector<int64_t> rev(shape.rbegin(), shape.rend());
    next = 0;
    for (auto& y : domain(rev)) {
      std::vector<int64_t> x(y.rbegin(), y.rend());
      RC_ASSERT(c.apply(x) == next++);
    }
  });
  rc::prop("UNRANK inverts row-major application, symbolically too", [] {
    std::vector<int64_t> shape = *rc::gen::container<std::vector<int64_t>>(
        *rc::gen::inRange<size_t>(1, 4), rc::gen::inRange<int64_t>(1, 5));
    SymLmad r = row_major(polys(shape));
    int64_t total = *concrete(r).domain_size();
    for (int64_t x = 0; x < total; ++x) {
      std::vector<Poly> idx = lmad_unrank(r, x);
      RC_ASSERT(ev(lmad_apply(r, idx), {}) == x);
    }
    // Symbolic shape [n, m]: unrank(x) evaluates to (x / m, x % m).
    SymLmad s = row_major({Poly::var("n"), Poly::var("m")});
    auto u = lmad_unrank(s, Poly::var("x"));
    Env env = {{"n", 3}, {"m", shape[0]}, {"x", *rc::gen::inRange<int64_t>(0, 3 * shape[0])}};
    RC_ASSERT(ev(u[0], env) == env["x"] / env["m"]);
    RC_ASSERT(ev(u[1], env) == env["x"] % env["m"]);
  });
  rc::prop("reshape maps every flat position like the original, and refuses only when no "
           "layout of the new shape does",
           [] {
             // A layout whose dimensions may be joinable (row-major slices, permutations).
             std::vector<int64_t> shape = *rc::gen::container<std::vector<int64_t>>(
                 *rc::gen::inRange<size_t>(1, 4), rc::gen::inRange<int64_t>(1, 5));
             SymLmad l = row_major(polys(shape));
             l.offset = *rc::gen::inRange<int64_t>(0, 5);
             if (*rc::gen::inRange(0, 3) == 0 && l.dims.size() >= 2) l = lmad_transpose(l);
             if (*rc::gen::inRange(0, 3) == 0) l = gen_lmad(1, 3);
             ConcreteLmad c = concrete(l);
             int64_t total = *c.domain_size();
             // A new shape with the same number of elements: factor the total.
             std::vector<int64_t> ns;
             int64_t rest = total;
             while (rest > 1) {
               std::vector<int64_t> divs;
               for (int64_t d = 2; d <= rest; ++d)
                 if (rest % d == 0) divs.push_back(d);
               int64_t d = *rc::gen::elementOf(divs);
               ns.push_back(d);
               rest /= d;
             }
             if (*rc::gen::inRange(0, 4) == 0) ns.insert(ns.begin(), 1);
             auto r = lmad_reshape(l, polys(ns));
             if (l == row_major(polys(shape)) || l.offset.constant() != 0) {
               // Row-major layouts (with any offset) are always reshapable.
               SymLmad base = row_major(polys(shape));
               base.offset = l.offset;
               if (l == base) RC_ASSERT(r.has_value());
             }
             SymLmad old_shape = row_major(polys(counts_of(c)));
             SymLmad new_shape = row_major(polys(ns));
             if (!r) {
               // A refusal must be right: no layout of the new shape sends every flat position
               // where the original does (its offset and strides are then fixed by the positions
               // of the unit steps).
               auto address = [&](const SymLmad& shape_of, int64_t x) {
                 std::vector<int64_t> idx;
                 for (auto& p : lmad_unrank(shape_of, x))
                   idx.push_back(ev(p, {}));
                 return idx;
               };
               const int64_t off = c.apply(address(old_shape, 0));
               std::vector<int64_t> strides(ns.size(), 0);
               for (size_t k = 0; k < ns.size(); ++k) {
                 if (ns[k] < 2) continue;
                 int64_t step = 1;
                 for (size_t j = k + 1; j < ns.size(); ++j)
                   step *= ns[j];
                 strides[k] = c.apply(address(old_shape, step)) - off;
               }
               bool lmad_exists = true;
               for (int64_t x = 0; x < total && lmad_exists; ++x) {
                 int64_t a = off;
                 const std::vector<int64_t> ni = address(new_shape, x);
                 for (size_t k = 0; k < ns.size(); ++k)
                   a += ni[k] * strides[k];
                 lmad_exists = a == c.apply(address(old_shape, x));
               }
               RC_CLASSIFY(true, "refused");
               RC_ASSERT_FALSE(lmad_exists);
               return;
             }
             RC_CLASSIFY(true, "reshaped");
             ConcreteLmad rc_ = concrete(*r);
             for (int64_t x = 0; x < total; ++x) {
               std::vector<int64_t> oi, ni;
               for (auto& p : lmad_unrank(old_shape, x))
                 oi.push_back(ev(p, {}));
               for (auto& p : lmad_unrank(new_shape, x))
                 ni.push_back(ev(p, {}));
               RC_ASSERT(rc_.apply(ni) == c.apply(oi));
             }
           });
  // The thesis example: reshape(10 + {(20:10), (10:1)}, [50, 4]) == 10 + {(50:4), (4:1)}.
  SymLmad l{10, {{20, 10}, {10, 1}}};
  CHECK(lmad_reshape(l, {50, 4}) == SymLmad{10, {{50, 4}, {4, 1}}});
  // Symbolic: [n][m*k] row-major is [n][m][k] and [n*m][k].
  Poly n = Poly::var("n"), m = Poly::var("m"), k = Poly::var("k");
  SymLmad s = row_major({n, m * k});
  CHECK(lmad_reshape(s, {n, m, k}) == row_major({n, m, k}));
  CHECK(lmad_reshape(s, {n * m, k}) == row_major({n * m, k}));
  // A transposed layout cannot be flattened into one LMAD.
  CHECK_FALSE(lmad_reshape(lmad_transpose(row_major({n, m})), {n * m}).has_value());
  CHECK_FALSE(lmad_reshape(s, {n, m}).has_value());
  // A dimension of extent one between two joined ones does not stop the join.
  CHECK(lmad_reshape(SymLmad{0, {{2, 2}, {1, 4}, {2, 1}}}, {1, 4}) == SymLmad{0, {{1, 1}, {4, 1}}});
}

TEST_CASE("image-preserving operations keep the set of points", "[lmad]") {
  rc::prop("NORMALIZE: same points, positive strides sorted decreasingly", [] {
    SymLmad l = gen_lmad(0, 3, -1);
    auto n = lmad_normalize(l, constant_sign_oracle());
    RC_ASSERT(n.has_value());
    RC_ASSERT(points(*n) == points(l));
    for (size_t k = 0; k < n->dims.size(); ++k) {
      RC_ASSERT(ev(n->dims[k].second, {}) >= 0);
      if (k) RC_ASSERT(ev(n->dims[k - 1].second, {}) >= ev(n->dims[k].second, {}));
    }
  });
  rc::prop("positive strides (the prover's SOSI step): same points, no count-1 or zero-stride "
           "dimension left",
           [] {
             SymLmad l = gen_lmad(0, 3, 1); // counts >= 1: the same points
             std::vector<std::string> notes;
             auto p = lmad_positive_strides(l, constant_sign_oracle(), true, &notes);
             RC_ASSERT(p.has_value());
             RC_ASSERT(points(*p) == points(l));
             for (const auto& [c, st] : p->dims) {
               RC_ASSERT(ev(st, {}) > 0);
               RC_ASSERT(ev(c, {}) != 1);
             }
           });
  // The thesis example: 16 + {(4:-1), (8:4)} normalises to 13 + {(8:4), (4:1)}.
  auto n = lmad_normalize(SymLmad{16, {{4, -1}, {8, 4}}}, constant_sign_oracle());
  REQUIRE(n.has_value());
  CHECK(*n == SymLmad{13, {{8, 4}, {4, 1}}});
  CHECK_FALSE(lmad_normalize(SymLmad{0, {{4, Poly::var("s")}}}, constant_sign_oracle()));

  rc::prop("the canonical form of a set keeps the points, and is a fixed point", [] {
    SymLmad l = gen_lmad(0, 4, 1); // counts >= 1
    // Strides that are another dimension's count times stride, so that joins happen.
    if (l.dims.size() >= 2 && *rc::gen::inRange(0, 2) == 0)
      l.dims[0].second = l.dims[1].first * l.dims[1].second;
    SymLmad c = lmad_canonical_set(l);
    RC_ASSERT(points(c) == points(l));
    RC_ASSERT(lmad_canonical_set(c) == c);
    for (const auto& [count, stride] : c.dims)
      RC_ASSERT(!(count == Poly(1)) && !(stride == Poly(0)));
  });
  // A dimension of stride count * stride joins the other; the order is by stride.
  CHECK(lmad_canonical_set(SymLmad{0, {{2, 12}, {4, 3}, {1, 5}}}) == SymLmad{0, {{8, 3}}});
  CHECK(lmad_canonical_set(SymLmad{1, {{3, 1}, {2, 10}}}) == SymLmad{1, {{3, 1}, {2, 10}}});
  rc::prop("inserting an empty dimension keeps the points", [] {
    SymLmad l = gen_lmad(0, 3, -1);
    size_t pos = *rc::gen::inRange<size_t>(0, l.dims.size() + 1);
    RC_ASSERT(points(lmad_insert_empty(l, pos, *rc::gen::inRange<int64_t>(-9, 10))) == points(l));
  });
  rc::prop("split then join is the identity; both keep the index mapping", [] {
    SymLmad l = gen_lmad(1, 3);
    size_t i = *rc::gen::inRange<size_t>(0, l.dims.size());
    int64_t j = *rc::gen::inRange<int64_t>(1, 4);
    l.dims[i].first = l.dims[i].first * j;
    auto s = lmad_split(l, i, j);
    RC_ASSERT(s.has_value());
    RC_ASSERT(points(*s) == points(l));
    ConcreteLmad cs = concrete(*s), cl = concrete(l);
    for (auto& y : domain(counts_of(cs))) {
      std::vector<int64_t> x = y;
      x[i] = y[i] * j + y[i + 1];
      x.erase(x.begin() + static_cast<long>(i) + 1);
      RC_ASSERT(cs.apply(y) == cl.apply(x));
    }
    auto back = lmad_join(*s, i);
    RC_ASSERT(back.has_value());
    RC_ASSERT(*back == l);
  });
  SymLmad t{5, {{20, 10}, {10, 1}}};
  CHECK(lmad_join(t, 0) == SymLmad{5, {{200, 1}}});
  CHECK(lmad_split(SymLmad{5, {{200, 1}}}, 0, 10) == t);
  CHECK_FALSE(lmad_join(SymLmad{0, {{20, 9}, {10, 1}}}, 0));
  CHECK_FALSE(lmad_split(SymLmad{0, {{7, 1}}}, 0, 2));
  Poly n_ = Poly::var("n"), b = Poly::var("b");
  CHECK(lmad_split(SymLmad{0, {{n_ * b, 1}}}, 0, b) == SymLmad{0, {{n_, b}, {b, 1}}});

  rc::prop("EXPAND(i, l, s, L) is the union of L over l <= i < l + s", [] {
    SymLmad l = gen_lmad(0, 2);
    int64_t a = *rc::gen::inRange<int64_t>(-5, 6), c = *rc::gen::inRange<int64_t>(-4, 5);
    l.offset = Poly(a) + Poly(c) * Poly::var("i");
    int64_t lo = *rc::gen::inRange<int64_t>(-3, 4), span = *rc::gen::inRange<int64_t>(0, 4);
    auto e = lmad_expand("i", lo, span, l);
    RC_ASSERT(e.has_value());
    std::set<int64_t> uni;
    for (int64_t i = lo; i < lo + span; ++i)
      for (int64_t p : points(l, {{"i", i}}))
        uni.insert(p);
    RC_ASSERT(points(*e) == std::vector<int64_t>(uni.begin(), uni.end()));
  });
  Poly i = Poly::var("i");
  CHECK_FALSE(lmad_expand("i", 0, 4, SymLmad{i * i, {}}));
  CHECK_FALSE(lmad_expand("i", 0, 4, SymLmad{0, {{i, 1}}}));
  CHECK_FALSE(lmad_expand("i", 0, 4, SymLmad{Poly::div(i, 2), {}}));
  CHECK(lmad_expand("i", 1, n_, SymLmad{i * b, {{b, 1}}}) == SymLmad{b, {{n_, b}, {b, 1}}});
}

TEST_CASE("multivariate division", "[symbolic]") {
  Poly n = Poly::var("n"), b = Poly::var("b");
  auto [q, r] = Poly::divide(n * b, n * b - b);
  CHECK(q == Poly(1));
  CHECK(r == b);
  CHECK((n * n + 2 * n + 1).exact_div(n + 1) == n + 1);
  CHECK_FALSE((n * n + 1).exact_div(n + 1));
  rc::prop("a == q*b + r", [] {
    Poly a = gen_affine() * gen_affine() + gen_affine();
    Poly d = gen_affine();
    auto [qq, rr] = Poly::divide(a, d);
    RC_ASSERT(qq * d + rr == a);
    if (d == Poly(0)) RC_ASSERT(qq == Poly(0));
    auto e = (a * d).exact_div(d);
    if (!(d == Poly(0))) RC_ASSERT(e.has_value() && *e == a);
  });
}

TEST_CASE("nested(): never true where two index tuples share a cell (enumeration)",
          "[lmad][property]") {
  rc::prop("nested() => as many distinct points as tuples", [] {
    funmem::ConcreteLmad l;
    l.offset = *rc::gen::inRange<int64_t>(-5, 5);
    const int rank = *rc::gen::inRange(1, 4);
    for (int k = 0; k < rank; ++k)
      l.dims.emplace_back(*rc::gen::inRange<int64_t>(-1, 5), *rc::gen::inRange<int64_t>(-9, 10));
    auto pts = l.points(1 << 12);
    RC_ASSERT(pts.has_value());
    if (l.nested()) RC_ASSERT(static_cast<int64_t>(pts->size()) == *l.domain_size());
  });
  funmem::ConcreteLmad row{0, {{4, 3}, {3, 1}}}, col{0, {{3, 1}, {4, 3}}};
  CHECK(row.nested());
  CHECK(col.nested());
  CHECK_FALSE(funmem::ConcreteLmad({0, {{2, 0}}}).nested());
  CHECK(funmem::ConcreteLmad({0, {{1, 0}, {5, 1}}}).nested());       // one point along 0
  CHECK(funmem::ConcreteLmad({0, {{0, 0}, {5, 0}}}).nested());       // no point
  CHECK_FALSE(funmem::ConcreteLmad({0, {{3, 2}, {2, 3}}}).nested()); // injective, not nested
  CHECK_FALSE(funmem::ConcreteLmad({0, {{2, INT64_MIN}, {2, INT64_MIN}}}).nested());
  CHECK(funmem::ConcreteLmad({0, {{2, INT64_MIN}, {2, 1}}}).nested());
}
