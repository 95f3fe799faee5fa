// The machine: blocks, copies, layouts and destinations (see machine.h).
#include "interp/machine.h"

#include <limits>

namespace funmem::machine {

namespace {

// Layouts are computed exactly: every product of two int64 values fits 128 bits, and a
// sum of them counts how often it wrapped around 2^128.
__extension__ typedef __int128 Wide; // NOLINT(modernize-use-using): __extension__ needs it

bool fits_i64(Wide v) {
  return v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max();
}

std::string wide_text(Wide v) {
  if (fits_i64(v)) return std::to_string(static_cast<int64_t>(v));
  std::string digits;
  for (Wide m = v; m != 0; m /= 10)
    digits.insert(digits.begin(),
                  static_cast<char>('0' + static_cast<int>(m < 0 ? -(m % 10) : m % 10)));
  return (v < 0 ? "-" : "") + digits;
}

/// An exact sum of int64 values and products of two: a 128-bit value plus `wraps_` times
/// 2^128.
class ExactSum {
public:
  explicit ExactSum(int64_t v = 0) : value_(v) {}
  void add(int64_t a, int64_t b = 1) {
    const Wide t = Wide(a) * b; // at most 2^126 in magnitude
    if (__builtin_add_overflow(value_, t, &value_)) wraps_ += t > 0 ? 1 : -1;
  }
  bool less_than(int64_t x) const { return wraps_ != 0 ? wraps_ < 0 : value_ < x; }
  std::optional<int64_t> narrow() const {
    if (wraps_ != 0 || !fits_i64(value_)) return std::nullopt;
    return static_cast<int64_t>(value_);
  }
  std::string text() const {
    if (wraps_ != 0) return wraps_ < 0 ? "below -2^127" : "beyond 2^127";
    return wide_text(value_);
  }

private:
  Wide value_;
  int64_t wraps_ = 0;
};

/// The dense layout of `shape`, row-major or column-major. A stride that does not fit
/// int64 belongs to a dimension of at most one element or to an array with none (it is
/// kept as 0: the places do not change); otherwise the array has more than 2^63 elements,
/// the same `resource` error as `product`.
ConcreteLmad dense_layout(const std::vector<int64_t>& shape, bool row, Pos pos) {
  bool empty = false;
  for (int64_t n : shape)
    empty = empty || n <= 0;
  ConcreteLmad r;
  r.dims.resize(shape.size());
  Wide stride = 1;
  bool wide = false; // the stride left int64 (and is no longer kept)
  for (size_t j = 0; j < shape.size(); ++j) {
    const size_t k = row ? shape.size() - 1 - j : j;
    if (wide && !empty && shape[k] > 1) throw RunError("resource", pos, "array size overflows");
    r.dims[k] = {shape[k], wide ? 0 : static_cast<int64_t>(stride)};
    if (wide) continue;
    stride *= shape[k];
    wide = !fits_i64(stride);
  }
  return r;
}

} // namespace

void Machine::push_tracker(Pos pos) {
  Tracker t;
  t.pos = pos;
  trackers.push_back(std::move(t));
  if (shadows.size() < trackers.size()) shadows.resize(trackers.size());
}

void Machine::pop_tracker() {
  Tracker& t = trackers.back();
  auto& tables = shadows[trackers.size() - 1];
  for (const auto& [id, page] : t.touched) {
    auto it = tables.find(id);
    if (it == tables.end()) continue; // the block died (forget_block gave its pages back)
    shadow_pages.give(it->second[page]);
    it->second[page] = nullptr;
  }
  if (t.race) races.push_back(*t.race);
  trackers.pop_back();
}

void Machine::forget_block(int64_t id) {
  for (auto& s : shadows) {
    auto it = s.find(id);
    if (it == s.end()) continue;
    for (CellAcc* p : it->second)
      if (p) shadow_pages.give(p);
    s.erase(it);
  }
  for (Tracker& t : trackers)
    if (t.cached_block == id) {
      t.cached_block = -1;
      t.cached = nullptr;
    }
}

// Blocks tell the machine when they die (forget_block): release them while the
// machine's tables still exist.
Machine::~Machine() {
  env.clear();
  races.clear();
}

// -------------------------------------------------------------- heap

BlockP Machine::new_block(const std::string& name, int64_t size, Pos pos) {
  if (size < 0)
    throw RunError("size", pos, "allocation of a negative size " + std::to_string(size));
  if (size > (lim.max_memory_bytes - live_bytes) / 16)
    throw RunError("resource", pos,
                   "allocating " + std::to_string(size) + " elements for '" + name +
                       "' exceeds --max-memory (" + std::to_string(lim.max_memory_bytes) +
                       " bytes, 16 per element; " + std::to_string(live_bytes) + " in use)");
  ++stats.allocs;
  Storage storage = storage_pool.take(static_cast<size_t>(size));
  return std::make_shared<Block>(this, next_id++, name, size, std::move(storage));
}

/// memcpy (fig. 4.10): all source elements are read (from the old heap) before the
/// destination is written. A copy onto the same place is elided.
void Machine::copy(const ArrV& src, const BlockP& dst, const ConcreteLmad& dlay, Pos pos) {
  std::vector<int64_t> ss = src.shape(), ds;
  for (auto& d : dlay.dims)
    ds.push_back(d.first);
  if (ss != ds)
    throw RunError("size", pos,
                   "copying an array of shape " + index_text(ss) + " into a place of shape " +
                       index_text(ds));
  if (src.block == dst && src.lay.offset == dlay.offset && src.lay.dims == dlay.dims) {
    // The elided copy would have read every element of the source and written it.
    if (auditing) audit_elided(src, pos);
    ++stats.elided;
    stats.elided_elems += dlay.domain_size().value_or(0);
    return;
  }
  ++stats.copies;
  std::vector<Scalar> buf;
  each(src.lay, [&](int64_t, int64_t off) {
    buf.push_back(read(*src.block, off, src.elem, pos));
    audit_read(src, off, pos);
  });
  step(pos, static_cast<int64_t>(buf.size()));
  stats.copied_elems += static_cast<int64_t>(buf.size());
  each(dlay, [&](int64_t t, int64_t off) { write(*dst, off, buf[static_cast<size_t>(t)], pos); });
}

namespace {
std::string at(Pos p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}
} // namespace

void Machine::audit_failure(const ArrV& a, int64_t off, const AuditCell& c, uint64_t since,
                            Pos pos) const {
  std::string cell = a.block->name + "[" + std::to_string(off) + "]";
  if (c.when == 0)
    throw RunError("audit", pos, "reads " + cell + ", which no statement has written");
  if (c.when > since)
    throw RunError("audit", pos,
                   "reads " + cell + ", which the write at " + at(c.who) +
                       " changed after the array read here was complete");
  throw RunError("audit", pos,
                 "reads " + cell + ", which still holds an old value under the scratch array of " +
                     at(c.scratch_pos) + " (the value semantics reads 0)");
}

void Machine::audit_scratch(const ArrV& a, Pos pos) {
  ++clock;
  each(a.lay, [&](int64_t, int64_t off) {
    // A cell outside the block is never read without a bounds error first.
    if (off < 0 || off >= static_cast<int64_t>(a.block->audit.size())) return;
    AuditCell& c = a.block->audit[static_cast<size_t>(off)];
    c.scratch = clock;
    c.scratch_pos = pos;
  });
}

void Machine::audit_elided(const ArrV& src, Pos pos) {
  each(src.lay, [&](int64_t, int64_t off) { audit_read(src, off, pos); });
  ++clock;
  each(src.lay, [&](int64_t, int64_t off) {
    if (off >= 0 && off < static_cast<int64_t>(src.block->audit.size()))
      src.block->audit[static_cast<size_t>(off)].copied = clock;
  });
}

void Machine::audit_place(const ConcreteLmad& place) {
  audit_place_.emplace();
  each(place, [&](int64_t, int64_t off) { audit_place_->insert(off); });
}

void Machine::audit_complete(ArrV& a) {
  if (audit_place_) { // an update: its place is the new array's own
    auto node = std::make_shared<AuditNode>();
    node->since = clock;
    node->place = std::move(*audit_place_);
    audit_place_.reset();
    std::shared_ptr<const AuditNode> parent = a.chain;
    if (!parent) {
      auto root = std::make_shared<AuditNode>();
      root->since = a.since;
      parent = std::move(root);
    }
    node->depth = parent->depth + 1;
    if (node->depth < AuditNode::kMaxDepth) node->parent = std::move(parent);
    a.chain = std::move(node);
  } else {
    a.chain.reset();
  }
  a.since = clock;
}

/// A fresh row-major array (value semantics, and the heap's hidden temporaries).
ArrV Machine::fresh(const std::string& name, ScalarType elem, const std::vector<int64_t>& shape,
                    Pos pos) {
  ArrV a;
  a.elem = elem;
  a.block = new_block(name, product(shape, pos), pos);
  a.lay = dense_layout(shape, true, pos);
  return a;
}

int64_t Machine::eval_size(const SExp& e, const char* what) {
  return exact_int(
      e, [&](const SExp& x) { return eval_int(x, what); }, what);
}

std::vector<int64_t> Machine::eval_dims(const Type& t) {
  // A type's sizes are polynomials, equal when their normal forms are (the type
  // checker's rule): evaluated exactly, equal polynomials give equal sizes.
  std::vector<int64_t> out;
  for (const SExpP& d : t.dims)
    out.push_back(eval_size(*d, "a size"));
  return out;
}

int64_t Machine::eval_address(const SExp& e, const char* what) {
  return wrapped_int(e, [&](const SExp& x) { return eval_int(x, what); });
}

ConcreteLmad Machine::eval_lmad(const LmadSyn& l) {
  ConcreteLmad c;
  auto get = [&](const SExpP& e) { return eval_size(*e, "an LMAD count"); }; // see eval_dims
  auto address = [&](const SExpP& e) { return eval_address(*e, "an LMAD component"); };
  if (l.form == LmadSyn::Form::Explicit) {
    c.offset = address(l.offset);
    for (const auto& [n, s] : l.dims)
      c.dims.emplace_back(get(n), address(s));
    return c;
  }
  std::vector<int64_t> shape;
  for (const SExpP& a : l.args)
    shape.push_back(get(a));
  return dense_layout(shape, l.form == LmadSyn::Form::Row, l.pos);
}

int64_t Machine::parameter_cells(const Binding& a, const std::string& block) {
  const LmadSyn& ls = a.type->ann->lmad;
  ConcreteLmad l = eval_lmad(ls);
  auto pts = l.domain_size();
  if (!pts || *pts == 0) return 0;
  if (ls.form == LmadSyn::Form::Explicit) { // dense layouts are exact already
    l.offset = eval_int(*ls.offset, "an LMAD component");
    for (size_t k = 0; k < l.dims.size() && k < ls.dims.size(); ++k)
      if (l.dims[k].first > 1) l.dims[k].second = eval_int(*ls.dims[k].second, "an LMAD component");
  }
  ExactSum lo(l.offset), hi(l.offset);
  for (const auto& [c, st] : l.dims)
    (st < 0 ? lo : hi).add(c - 1, st);
  const std::string what = "the layout of parameter '" + a.name.s + "' reaches address ";
  if (lo.less_than(0))
    throw RunError("bounds", a.name.pos, what + lo.text() + ", below its block '" + block + "'");
  auto top = hi.narrow();
  if (!top || *top == std::numeric_limits<int64_t>::max())
    throw RunError("resource", a.name.pos, what + hi.text() + ", beyond any block");
  return *top + 1;
}

/// The destination of an array-creating expression: fresh (value semantics) or the
/// memory and LMAD of the binding's annotation (heap semantics).
ArrV Machine::destination(const Binding& b, const std::vector<int64_t>& shape, ScalarType elem,
                          Pos pos) {
  if (sem == Semantics::Value || !b.type || !b.type->ann) return fresh(b.name.s, elem, shape, pos);
  product(shape, pos); // a negative or overflowing shape ends as the value semantics' does
  ArrV a;
  a.elem = elem;
  a.block = mem(b.type->ann->mem);
  a.lay = eval_lmad(b.type->ann->lmad);
  std::vector<int64_t> ls;
  for (auto& d : a.lay.dims)
    ls.push_back(d.first);
  if (ls != shape)
    throw RunError("size", pos,
                   "the layout of '" + b.name.s + "' has shape " + index_text(ls) +
                       " but the value has shape " + index_text(shape));
  return a;
}

// -------------------------------------------------------------- views

namespace {

/// The layout of a view before it is narrowed to int64; each stride remembers the
/// entry that made it, the offset the last entry that moved it.
struct ExactLmad {
  ExactSum offset;
  Pos offset_pos;
  struct Dim {
    int64_t count;
    Wide stride;
    Pos pos;
  };
  std::vector<Dim> dims;
};

/// The int64 layout of `w`. A place with an element that lies inside a block has its
/// offset, and the stride of every dimension of two elements or more, in int64: a
/// component that does not fit puts the place outside every block, a bounds error on
/// `what`. A component that does not matter is not kept exactly: an empty place whose
/// offset does not fit keeps `empty_offset`, and a stride that does not fit becomes 0
/// in a dimension of at most one element (the place does not change).
ConcreteLmad narrow(const ExactLmad& w, int64_t empty_offset, const std::string& what) {
  bool empty = false;
  for (const ExactLmad::Dim& d : w.dims)
    empty = empty || d.count <= 0;
  ConcreteLmad r;
  std::optional<int64_t> off = w.offset.narrow();
  if (!off && !empty)
    throw RunError("bounds", w.offset_pos,
                   what + " starts at offset " + w.offset.text() + ", outside every block");
  r.offset = off.value_or(empty_offset);
  for (size_t k = 0; k < w.dims.size(); ++k) {
    const ExactLmad::Dim& d = w.dims[k];
    if (!fits_i64(d.stride) && !empty && d.count > 1)
      throw RunError("bounds", d.pos,
                     what + " steps " + wide_text(d.stride) + " elements in dimension " +
                         std::to_string(k) + ": its elements cannot all lie in one block");
    r.dims.emplace_back(d.count, fits_i64(d.stride) ? static_cast<int64_t>(d.stride) : 0);
  }
  return r;
}

} // namespace

/// Applies index and slice entries; `full` tells whether every dimension was indexed.
ConcreteLmad Machine::apply_entries(const ArrV& a, const std::vector<Entry>& es, const Name& arr,
                                    bool& full) {
  const ConcreteLmad& l = a.lay;
  if (es.size() > l.dims.size())
    throw RunError("size", arr.pos,
                   std::to_string(es.size()) + " indices for '" + arr.s + "' of rank " +
                       std::to_string(l.dims.size()));
  ExactLmad r;
  r.offset = ExactSum(l.offset);
  r.offset_pos = arr.pos;
  full = es.size() == l.dims.size();
  for (size_t k = 0; k < l.dims.size(); ++k) {
    // Plain variables, not a structured binding: the lambda below captures `n`,
    // which clang 14 (the sanitised build's compiler) does not allow of a binding.
    const int64_t n = l.dims[k].first, s = l.dims[k].second;
    if (k >= es.size()) {
      r.dims.push_back({n, Wide(s), arr.pos});
      continue;
    }
    const Entry& e = es[k];
    int64_t start = eval_int(*e.start, "an index");
    auto oob = [&](const std::string& what) {
      return RunError("bounds", e.start->pos,
                      what + " out of bounds for dimension " + std::to_string(k) + " of '" + arr.s +
                          "' (size " + std::to_string(n) + ")");
    };
    auto move_offset = [&] {
      if (start == 0 || s == 0) return;
      r.offset.add(start, s);
      r.offset_pos = e.start->pos;
    };
    if (e.is_index()) {
      if (start < 0 || start >= n) throw oob("index " + std::to_string(start));
      move_offset();
      continue;
    }
    full = false;
    int64_t count = eval_int(*e.count, "a slice count");
    int64_t stride = e.stride ? eval_int(*e.stride, "a slice stride") : 1;
    if (count < 0)
      throw RunError("size", e.count->pos, "negative slice count " + std::to_string(count));
    if (count > 0) {
      const Wide last = Wide(start) + Wide(count - 1) * stride;
      if (start < 0 || start >= n || last < 0 || last >= n)
        throw oob("slice " + std::to_string(start) + ":" + std::to_string(count) + ":" +
                  std::to_string(stride));
    }
    move_offset();
    r.dims.push_back({count, Wide(stride) * s, e.start->pos});
  }
  return narrow(r, l.offset, "the view of '" + arr.s + "'");
}

ConcreteLmad Machine::apply_lmad(const ArrV& a, const LmadSyn& ls, const Name& arr) {
  if (a.lay.dims.size() != 1)
    throw RunError("size", arr.pos, "an LMAD slice of '" + arr.s + "', which is not 1-d");
  ConcreteLmad in = eval_lmad(ls);
  for (size_t k = 0; k < in.dims.size(); ++k)
    if (in.dims[k].first < 0)
      throw RunError("size", ls.form == LmadSyn::Form::Explicit ? ls.dims[k].first->pos : ls.pos,
                     "negative slice count " + std::to_string(in.dims[k].first));
  auto [n, s] = a.lay.dims[0];
  ExactSum lo(in.offset), hi(in.offset);
  bool empty = false;
  for (auto& [c, st] : in.dims) {
    if (c <= 0)
      empty = true;
    else
      (st < 0 ? lo : hi).add(c - 1, st);
  }
  if (!empty && (lo.less_than(0) || !hi.less_than(n)))
    throw RunError("bounds", ls.pos,
                   "the LMAD slice reaches elements " + lo.text() + ".." + hi.text() + " of '" +
                       arr.s + "' (size " + std::to_string(n) + ")");
  ExactLmad r;
  r.offset = ExactSum(a.lay.offset);
  r.offset.add(in.offset, s);
  r.offset_pos = ls.pos;
  for (auto& [c, st] : in.dims)
    r.dims.push_back({c, Wide(st) * s, ls.pos});
  return narrow(r, a.lay.offset, "the LMAD slice of '" + arr.s + "'");
}

Block::Block(Machine* mm, int64_t i, std::string n, int64_t size, Storage storage)
    : m(mm), id(i), name(std::move(n)), cells(std::move(storage.cells)),
      set(std::move(storage.set)) {
  if (m->auditing) audit.resize(static_cast<size_t>(size));
  m->live_bytes += size * 16;
  m->stats.peak_bytes = std::max(m->stats.peak_bytes, m->live_bytes);
}

Block::~Block() {
  m->forget_block(id);
  m->live_bytes -= static_cast<int64_t>(cells.size()) * 16;
  m->storage_pool.give(Storage{std::move(cells), std::move(set)});
}

// -------------------------------------------------------------- pools

namespace {

size_t log2_floor(size_t x) {
  size_t c = 0;
  while (x >>= 1)
    ++c;
  return c;
}

} // namespace

Storage StoragePool::take(size_t size) {
  // A kept storage of capacity in [size, 2 size]: in the class of `size` or the next.
  const size_t c = log2_floor(size);
  for (size_t k = c; size >= kMinCells && k <= c + 1 && k < classes_.size(); ++k)
    for (size_t j = 0; j < classes_[k].size(); ++j) {
      const size_t cap = classes_[k][j].cells.capacity();
      if (cap < size || cap > 2 * size) continue;
      std::swap(classes_[k][j], classes_[k].back());
      Storage s = std::move(classes_[k].back());
      classes_[k].pop_back();
      bytes_ -= bytes_of(s);
      s.cells.resize(size);
      s.set.assign(size, 0);
      return s;
    }
  return Storage{std::vector<Scalar>(size), std::vector<uint8_t>(size, 0)};
}

void StoragePool::give(Storage s) {
  const size_t cap = s.cells.capacity();
  if (cap < kMinCells || bytes_of(s) > kMaxBytes) return;
  const size_t c = log2_floor(cap);
  if (classes_.size() <= c) classes_.resize(c + 1);
  std::vector<Storage>& cls = classes_[c];
  if (cls.size() == kPerClass) {
    bytes_ -= bytes_of(cls.front());
    cls.erase(cls.begin());
  }
  // Over the limit: the largest kept storages go first.
  for (size_t k = classes_.size(); k-- > 0 && bytes_ + bytes_of(s) > kMaxBytes;)
    while (!classes_[k].empty() && bytes_ + bytes_of(s) > kMaxBytes) {
      bytes_ -= bytes_of(classes_[k].front());
      classes_[k].erase(classes_[k].begin());
    }
  bytes_ += bytes_of(s);
  cls.push_back(std::move(s));
}

} // namespace funmem::machine
