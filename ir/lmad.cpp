// Symbolic LMAD layout operations used by the FUNMEM type rules (see lmad.h).
#include "ir/lmad.h"

#include <algorithm>
#include <set>

namespace funmem {

std::string SymLmad::to_string() const {
  std::string s = offset.to_string() + " + {";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", (" : "(") + dims[i].first.to_string() + " : " + dims[i].second.to_string() + ")";
  return s + "}";
}

SymLmad row_major(const std::vector<Poly>& shape) {
  SymLmad l;
  l.dims.resize(shape.size());
  Poly stride = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    l.dims[k] = {shape[k], stride};
    stride = stride * shape[k];
  }
  return l;
}

SymLmad col_major(const std::vector<Poly>& shape) {
  SymLmad l;
  Poly stride = 1;
  for (const Poly& d : shape) {
    l.dims.emplace_back(d, stride);
    stride = stride * d;
  }
  return l;
}

namespace {

/// The stride of a dimension of `count` elements whose step is `step` times `unit`: the
/// product, or `unit` where the product does not fit 64 bits and the dimension holds at
/// most one element (its stride then addresses nothing): `xs[3 : 1 : 2^62]` sliced again
/// by `[0 : 1 : 2]` is a valid view of one element.
Poly dim_stride(const Poly& count, const Poly& step, const Poly& unit) {
  try {
    return step * unit;
  } catch (const SymbolicOverflow&) {
    if (auto c = count.constant(); c && *c <= 1) return unit;
    throw;
  }
}

} // namespace

SymLmad lmad_index(const SymLmad& l, const std::vector<SymEntry>& entries) {
  SymLmad r;
  r.offset = l.offset;
  for (size_t k = 0; k < l.dims.size(); ++k) {
    const auto& [count, stride] = l.dims[k];
    if (k >= entries.size()) {
      r.dims.emplace_back(count, stride);
      continue;
    }
    const SymEntry& e = entries[k];
    r.offset = r.offset + e.start * stride;
    if (e.count) r.dims.emplace_back(*e.count, dim_stride(*e.count, e.stride, stride));
  }
  return r;
}

SymLmad lmad_compose(const SymLmad& outer, const SymLmad& inner) {
  const Poly& t = outer.dims.at(0).second;
  SymLmad r;
  r.offset = outer.offset + inner.offset * t;
  for (const auto& [c, s] : inner.dims)
    r.dims.emplace_back(c, dim_stride(c, s, t));
  return r;
}

SymLmad lmad_transpose(const SymLmad& l) {
  SymLmad r = l;
  if (r.dims.size() >= 2) std::swap(r.dims[0], r.dims[1]);
  return r;
}

} // namespace funmem

namespace funmem {

Poly lmad_apply(const SymLmad& l, const std::vector<Poly>& idx) {
  Poly r = l.offset;
  for (size_t k = 0; k < idx.size() && k < l.dims.size(); ++k)
    r = r + idx[k] * l.dims[k].second;
  return r;
}

SymLmad lmad_fix(const SymLmad& l, const Poly& k) {
  SymLmad r;
  r.offset = l.offset + k * l.dims.at(0).second;
  r.dims.assign(l.dims.begin() + 1, l.dims.end());
  return r;
}

SymLmad lmad_slice(const SymLmad& l, const std::vector<std::pair<Poly, Poly>>& s) {
  std::vector<Triplet> t;
  t.reserve(s.size());
  for (const auto& [x, y] : s)
    t.push_back({x, y, Poly(1)});
  return lmad_slice_strided(l, t);
}

SymLmad lmad_slice_strided(const SymLmad& l, const std::vector<Triplet>& s) {
  std::vector<SymEntry> e;
  e.reserve(s.size());
  for (const Triplet& t : s)
    e.push_back({t.start, t.count, t.stride});
  return lmad_index(l, e);
}

std::optional<SymLmad> lmad_slice_lmads(const SymLmad& l, const std::vector<SymLmad>& per_dim) {
  if (per_dim.size() != l.dims.size()) return std::nullopt;
  SymLmad r;
  r.offset = l.offset;
  for (size_t k = 0; k < l.dims.size(); ++k) {
    const Poly& d = l.dims[k].second;
    r.offset = r.offset + per_dim[k].offset * d;
    for (const auto& [c, s] : per_dim[k].dims)
      r.dims.emplace_back(c, d * s);
  }
  return r;
}

std::optional<SymLmad> lmad_permute(const SymLmad& l, const std::vector<int>& perm) {
  if (perm.size() != l.dims.size()) return std::nullopt;
  std::vector<bool> seen(perm.size(), false);
  SymLmad r;
  r.offset = l.offset;
  for (int p : perm) {
    if (p < 0 || static_cast<size_t>(p) >= perm.size() || seen[p]) return std::nullopt;
    seen[p] = true;
    r.dims.push_back(l.dims[p]);
  }
  return r;
}

std::vector<Poly> lmad_unrank(const SymLmad& l, const Poly& x) {
  std::vector<Poly> out;
  Poly rest = x;
  for (size_t i = 0; i < l.dims.size(); ++i) {
    Poly tmp = 1;
    for (size_t j = i + 1; j < l.dims.size(); ++j)
      tmp = tmp * l.dims[j].first;
    out.push_back(Poly::div(rest, tmp));
    rest = Poly::mod(rest, tmp);
  }
  return out;
}

std::optional<SymLmad> lmad_reshape(const SymLmad& l, const std::vector<Poly>& shape) {
  Poly old_size = 1, new_size = 1;
  for (const auto& d : l.dims)
    old_size = old_size * d.first;
  for (const Poly& m : shape)
    new_size = new_size * m;
  if (!(old_size == new_size)) return std::nullopt;
  // Walk both shapes from the innermost dimension. (c : d) is what remains of the
  // current old dimension; old dimensions are joined and split as the new shape needs.
  std::vector<std::pair<Poly, Poly>> out;
  size_t i = l.dims.size();
  Poly c = 1, d = 1;
  auto next_old = [&]() {
    if (i == 0) return false;
    --i;
    c = l.dims[i].first;
    d = l.dims[i].second;
    return true;
  };
  next_old();
  for (size_t j = shape.size(); j-- > 0;) {
    const Poly& m = shape[j];
    if (m == Poly(1)) {
      out.emplace_back(m, d);
      continue;
    }
    while (c == Poly(1) && next_old()) {
    }
    for (;;) {
      if (m == c) {
        out.emplace_back(m, d);
        c = 1;
        if (!next_old()) c = 1;
        break;
      }
      if (auto q = c.exact_div(m)) {
        out.emplace_back(m, d);
        c = *q;
        d = m * d;
        break;
      }
      // An old dimension of extent one joins any other (its stride never counts).
      while (i > 0 && l.dims[i - 1].first == Poly(1))
        --i;
      if (i == 0 || !(l.dims[i - 1].second == c * d)) return std::nullopt;
      --i;
      c = c * l.dims[i].first;
    }
  }
  // Everything left over must be of extent one.
  while (c == Poly(1) && next_old()) {
  }
  if (!(c == Poly(1))) return std::nullopt;
  SymLmad r;
  r.offset = l.offset;
  r.dims.assign(out.rbegin(), out.rend());
  return r;
}

SignOracle constant_sign_oracle() {
  return [](const Poly& p) -> std::optional<int> {
    auto k = p.constant();
    if (!k) return std::nullopt;
    return *k < 0 ? -1 : *k > 0 ? 1 : 0;
  };
}

std::optional<SymLmad> lmad_positive_strides(const SymLmad& l, const SignOracle& sign,
                                             bool drop_trivial, std::vector<std::string>* notes) {
  SymLmad r;
  r.offset = l.offset;
  for (const auto& [c, s] : l.dims) {
    if (drop_trivial && c == Poly(1)) continue; // a single index contributes nothing
    auto sg = sign(s);
    if (!sg) return std::nullopt;
    if (*sg < 0) {
      r.offset = r.offset + (c - 1) * s;
      r.dims.emplace_back(c, -s);
      if (notes) notes->push_back("stride " + s.to_string() + " < 0 reversed");
    } else if (*sg == 0 && drop_trivial) {
      if (notes) notes->push_back("stride 0 dropped");
    } else {
      r.dims.emplace_back(c, s);
    }
  }
  return r;
}

std::optional<SymLmad> lmad_normalize(const SymLmad& l, const SignOracle& sign) {
  std::optional<SymLmad> positive = lmad_positive_strides(l, sign);
  if (!positive) return std::nullopt;
  SymLmad r = std::move(*positive);
  // Stable insertion sort by decreasing stride; every comparison must be decided.
  for (size_t a = 1; a < r.dims.size(); ++a) {
    for (size_t b = a; b > 0; --b) {
      auto sg = sign(r.dims[b].second - r.dims[b - 1].second);
      if (!sg) return std::nullopt;
      if (*sg <= 0) break;
      std::swap(r.dims[b], r.dims[b - 1]);
    }
  }
  return r;
}

SymLmad lmad_canonical_set(SymLmad l) {
  std::erase_if(l.dims, [](const std::pair<Poly, Poly>& d) {
    return d.first == Poly(1) || d.second == Poly(0);
  });
  for (bool joined = true; joined;) {
    joined = false;
    for (size_t i = 0; i < l.dims.size() && !joined; ++i)
      for (size_t j = 0; j < l.dims.size() && !joined; ++j)
        if (i != j && l.dims[i].second == l.dims[j].first * l.dims[j].second) {
          l.dims[j].first = l.dims[i].first * l.dims[j].first;
          l.dims.erase(l.dims.begin() + static_cast<std::ptrdiff_t>(i));
          joined = true;
        }
  }
  std::sort(l.dims.begin(), l.dims.end(), [](const auto& a, const auto& b) {
    return a.second == b.second ? a.first < b.first : a.second < b.second;
  });
  return l;
}

SymLmad lmad_insert_empty(const SymLmad& l, size_t pos, const Poly& stride) {
  SymLmad r = l;
  r.dims.insert(r.dims.begin() + static_cast<std::ptrdiff_t>(std::min(pos, r.dims.size())),
                {Poly(1), stride});
  return r;
}

std::optional<SymLmad> lmad_join(const SymLmad& l, size_t i) {
  if (i + 1 >= l.dims.size()) return std::nullopt;
  const auto& [ci, si] = l.dims[i];
  const auto& [cj, sj] = l.dims[i + 1];
  if (!(si == cj * sj)) return std::nullopt;
  SymLmad r = l;
  r.dims[i] = {ci * cj, sj};
  r.dims.erase(r.dims.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  return r;
}

std::optional<SymLmad> lmad_split(const SymLmad& l, size_t i, const Poly& j) {
  if (i >= l.dims.size()) return std::nullopt;
  auto q = l.dims[i].first.exact_div(j);
  if (!q) return std::nullopt;
  SymLmad r = l;
  Poly s = l.dims[i].second;
  r.dims[i] = {*q, j * s};
  r.dims.insert(r.dims.begin() + static_cast<std::ptrdiff_t>(i) + 1, {j, s});
  return r;
}

namespace {
bool mentions(const Poly& p, const std::string& v) {
  auto fv = p.free_vars();
  return std::find(fv.begin(), fv.end(), v) != fv.end();
}
} // namespace

std::optional<SymLmad> lmad_expand(const std::string& i, const Poly& lower, const Poly& span,
                                   const SymLmad& l) {
  for (const auto& [c, s] : l.dims)
    if (mentions(c, i) || mentions(s, i)) return std::nullopt;
  if (mentions(lower, i) || mentions(span, i)) return std::nullopt;
  const std::string k = "expand%" + i; // cannot clash with a source name
  Poly at_k = l.offset.substitute({{i, Poly::var(k)}});
  Poly at_k1 = l.offset.substitute({{i, Poly::var(k) + 1}});
  Poly stride = at_k1 - at_k;
  if (mentions(stride, k)) return std::nullopt;
  // The offset must be affine in i: otherwise offset(i) != offset(lower) + (i-lower)*stride.
  Poly affine = l.offset.substitute({{i, lower}}) + (Poly::var(i) - lower) * stride;
  if (!(affine == l.offset)) return std::nullopt;
  SymLmad r;
  r.offset = l.offset.substitute({{i, lower}});
  r.dims.emplace_back(span, stride);
  r.dims.insert(r.dims.end(), l.dims.begin(), l.dims.end());
  return r;
}

SymLmad lmad_substitute(const SymLmad& l, const std::map<std::string, Poly>& s) {
  SymLmad r;
  r.offset = l.offset.substitute(s);
  for (const auto& [c, st] : l.dims)
    r.dims.emplace_back(c.substitute(s), st.substitute(s));
  return r;
}

std::vector<std::string> lmad_free_vars(const SymLmad& l) {
  std::set<std::string> out;
  auto add = [&](const Poly& p) {
    for (auto& v : p.free_vars())
      out.insert(v);
  };
  add(l.offset);
  for (const auto& [c, s] : l.dims) {
    add(c);
    add(s);
  }
  return {out.begin(), out.end()};
}

std::optional<int64_t> ConcreteLmad::domain_size() const {
  int64_t n = 1;
  for (const auto& [c, s] : dims) {
    if (c <= 0) return 0;
    if (__builtin_mul_overflow(n, c, &n)) return std::nullopt;
  }
  return n;
}

int64_t ConcreteLmad::apply(const std::vector<int64_t>& idx) const {
  int64_t r = offset;
  for (size_t k = 0; k < idx.size() && k < dims.size(); ++k)
    r += idx[k] * dims[k].second;
  return r;
}

bool ConcreteLmad::fits() const {
  auto n = domain_size();
  if (!n) return false;
  if (*n == 0) return true;
  // Every point lies between offset + sum of negative spans and offset + positive spans;
  // if those fit in int64, no partial sum overflows.
  int64_t lo = offset, hi = offset;
  for (const auto& [c, s] : dims) {
    int64_t span;
    if (__builtin_mul_overflow(c - 1, s, &span)) return false;
    int64_t& end = span < 0 ? lo : hi;
    if (__builtin_add_overflow(end, span, &end)) return false;
  }
  return true;
}

namespace {
__extension__ typedef unsigned __int128 UWide; // NOLINT(modernize-use-using): __extension__
__extension__ typedef __int128 Wide;           // NOLINT(modernize-use-using): needs it
} // namespace

bool ConcreteLmad::nested() const {
  auto n = domain_size();
  if (n && *n == 0) return true;
  std::vector<std::pair<UWide, int64_t>> steps; // (|stride|, count)
  for (const auto& [c, s] : dims) {
    if (c <= 0) return true;
    if (c >= 2)
      steps.emplace_back(s < 0 ? static_cast<UWide>(-static_cast<Wide>(s)) : static_cast<UWide>(s),
                         c);
  }
  std::sort(steps.begin(), steps.end());
  UWide span = 0; // below 2^64 * 2^63 * dims: no overflow in 128 bits
  for (const auto& [st, c] : steps) {
    if (st <= span) return false;
    span += st * static_cast<UWide>(c - 1);
  }
  return true;
}

std::optional<std::vector<int64_t>> ConcreteLmad::points(int64_t limit) const {
  auto n = domain_size();
  if (!n || *n > limit || !fits()) return std::nullopt;
  std::vector<int64_t> out;
  if (*n == 0) return out;
  out.reserve(static_cast<size_t>(*n));
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t t = 0; t < *n; ++t) {
    out.push_back(apply(idx));
    for (size_t k = dims.size(); k-- > 0;) {
      if (++idx[k] < dims[k].first) break;
      idx[k] = 0;
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<ConcreteLmad> lmad_eval(const SymLmad& l, const std::map<std::string, int64_t>& env,
                                      std::string* error) {
  ConcreteLmad r;
  auto o = l.offset.eval(env, error);
  if (!o) return std::nullopt;
  r.offset = *o;
  for (const auto& [c, s] : l.dims) {
    auto ce = c.eval(env, error), se = s.eval(env, error);
    if (!ce || !se) return std::nullopt;
    r.dims.emplace_back(*ce, *se);
  }
  return r;
}

} // namespace funmem
