// Symbolic LMAD layout operations used by the FUNMEM type rules (see lmad.h).
#include "ir/lmad.h"

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
    if (e.count) r.dims.emplace_back(*e.count, e.stride * stride);
  }
  return r;
}

SymLmad lmad_compose(const SymLmad& outer, const SymLmad& inner) {
  const Poly& t = outer.dims.at(0).second;
  SymLmad r;
  r.offset = outer.offset + inner.offset * t;
  for (const auto& [c, s] : inner.dims)
    r.dims.emplace_back(c, s * t);
  return r;
}

SymLmad lmad_transpose(const SymLmad& l) {
  SymLmad r = l;
  if (r.dims.size() >= 2) std::swap(r.dims[0], r.dims[1]);
  return r;
}

} // namespace funmem
