// The FUN value interpreter and the FUNMEM heap interpreter (see interp.h).
#include "interp/interp.h"

#include "ir/convert.h"
#include "ir/lmad.h"
#include "ir/overloaded.h"
#include "ir/printer.h"

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <memory>
#include <random>
#include <unordered_map>

namespace funmem {

// ---------------------------------------------------------------- data

std::string Data::to_string(size_t max_elems) const {
  if (is_mem) return "<memory block>";
  if (!is_array) return scalar.to_string();
  std::string s = "[";
  for (size_t k = 0; k < elems.size() && k < max_elems; ++k)
    s += (k ? ", " : "") + elems[k].to_string();
  if (elems.size() > max_elems) s += ", ...";
  s += "] (shape";
  for (int64_t d : shape)
    s += " " + std::to_string(d);
  return s + ")";
}

std::string Race::to_string() const {
  return "data race in the kernel at " + std::to_string(kernel.line) + ":" +
         std::to_string(kernel.col) + ": iteration " + std::to_string(writer) + " writes " + block +
         "[" + std::to_string(offset) + "], which iteration " + std::to_string(other) +
         (other_writes ? " also writes" : " reads");
}

namespace {

std::string index_text(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (size_t k = 0; k < idx.size(); ++k)
    s += (k ? ", " : "") + std::to_string(idx[k]);
  return s + "]";
}

/// Row-major multi-index of flat position t in `shape`.
std::vector<int64_t> unflatten(const std::vector<int64_t>& shape, int64_t t) {
  std::vector<int64_t> idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    idx[k] = shape[k] ? t % shape[k] : 0;
    t = shape[k] ? t / shape[k] : 0;
  }
  return idx;
}

int64_t product(const std::vector<int64_t>& shape, Pos pos) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw RunError("size", pos, "negative size " + std::to_string(d));
    if (__builtin_mul_overflow(n, d, &n)) throw RunError("resource", pos, "array size overflows");
  }
  return n;
}

} // namespace

std::optional<std::string> compare_results(const std::vector<Data>& value0,
                                           const std::vector<Data>& heap0) {
  // A FUN program's results have no memory blocks; its FUNMEM translation returns a
  // block before each array. Drop the blocks when the counts differ.
  std::vector<Data> heap = heap0;
  const std::vector<Data>& value = value0;
  if (value.size() != heap.size())
    heap.erase(std::remove_if(heap.begin(), heap.end(), [](const Data& d) { return d.is_mem; }),
               heap.end());
  if (value.size() != heap.size())
    return "the semantics return " + std::to_string(value.size()) + " and " +
           std::to_string(heap.size()) + " results";
  for (size_t r = 0; r < value.size(); ++r) {
    const Data &a = value[r], &b = heap[r];
    if (a.is_mem || b.is_mem) continue;
    std::string which = "result " + std::to_string(r + 1);
    if (a.is_array != b.is_array) return which + ": an array and a scalar";
    if (!a.is_array) {
      if (!(a.scalar == b.scalar))
        return which + ": value semantics " + a.scalar.to_string() + ", heap semantics " +
               b.scalar.to_string();
      continue;
    }
    if (a.shape != b.shape)
      return which + ": shapes " + index_text(a.shape) + " and " + index_text(b.shape);
    for (size_t k = 0; k < a.elems.size(); ++k)
      if (!(a.elems[k] == b.elems[k]))
        return which + index_text(unflatten(a.shape, static_cast<int64_t>(k))) +
               ": value semantics " + a.elems[k].to_string() + ", heap semantics " +
               b.elems[k].to_string();
  }
  return std::nullopt;
}

std::optional<std::string> compare_imp_results(const std::vector<Data>& value,
                                               const std::vector<Data>& imp) {
  if (value.size() != imp.size())
    return "the programs return " + std::to_string(value.size()) + " and " +
           std::to_string(imp.size()) + " results";
  for (size_t r = 0; r < value.size(); ++r) {
    const Data &a = value[r], &b = imp[r];
    std::string which = "result " + std::to_string(r + 1);
    if (!a.is_array) {
      if (b.is_array || !(a.scalar == b.scalar))
        return which + ": value semantics " + a.to_string() + ", IMP " + b.to_string();
      continue;
    }
    if (!b.is_array || b.elems.size() < a.elems.size())
      return which + ": the IMP block holds " + std::to_string(b.elems.size()) +
             " elements for an array of " + std::to_string(a.elems.size());
    for (size_t k = 0; k < a.elems.size(); ++k) {
      Scalar x = a.elems[k], y = b.elems[k];
      // A never-written cell reads as i64 zero; compare it as zero of the array's type.
      if (y.t != x.t && y.i == 0 && y.f == 0) y = Scalar::zero(x.t);
      if (!(x == y))
        return which + index_text(unflatten(a.shape, static_cast<int64_t>(k))) +
               ": value semantics " + x.to_string() + ", IMP " + y.to_string();
    }
  }
  return std::nullopt;
}

Inputs imp_inputs(const Def& def, const Inputs& in) {
  Inputs out;
  std::map<std::string, int64_t> env;
  for (const auto& [n, d] : in)
    if (!d.is_array && !d.is_mem) {
      out[n] = d;
      if (is_integer(d.scalar.t)) env[n] = d.scalar.i;
    }
  for (const Binding& m : def.params) {
    if (!m.type || m.type->kind != Type::Kind::Mem) continue;
    Data block;
    block.is_array = true;
    std::vector<std::pair<ConcreteLmad, const Data*>> placed;
    int64_t size = 0;
    for (const Binding& a : def.params) {
      if (!a.type || !a.type->ann || a.type->ann->mem.s != m.name.s) continue;
      auto it = in.find(a.name.s);
      if (it == in.end()) continue;
      const LmadSyn& ls = a.type->ann->lmad;
      SymLmad sl;
      auto to = [](const SExp& e) {
        auto p = to_poly(e);
        return p ? *p : Poly(0);
      };
      if (ls.form == LmadSyn::Form::Explicit) {
        sl.offset = to(*ls.offset);
        for (const auto& [c, s] : ls.dims)
          sl.dims.emplace_back(to(*c), to(*s));
      } else {
        std::vector<Poly> shape;
        for (const SExpP& e : ls.args)
          shape.push_back(to(*e));
        sl = ls.form == LmadSyn::Form::Row ? row_major(shape) : col_major(shape);
      }
      auto cl = lmad_eval(sl, env);
      if (!cl) continue;
      block.elem = a.type->elem;
      int64_t hi = cl->offset;
      for (auto& [c, s] : cl->dims)
        if (s > 0 && c > 0) hi += (c - 1) * s;
      if (cl->domain_size().value_or(0) > 0) size = std::max(size, hi + 1);
      placed.emplace_back(*cl, &it->second);
    }
    block.shape = {size};
    block.elems.assign(static_cast<size_t>(size), Scalar::zero(block.elem));
    for (auto& [cl, d] : placed) {
      std::vector<int64_t> idx(cl.dims.size(), 0);
      for (size_t t = 0; t < d->elems.size(); ++t) {
        int64_t off = cl.apply(idx);
        if (off >= 0 && off < size) block.elems[static_cast<size_t>(off)] = d->elems[t];
        for (size_t k = idx.size(); k-- > 0;) {
          if (++idx[k] < cl.dims[k].first) break;
          idx[k] = 0;
        }
      }
    }
    out[m.name.s] = block;
  }
  return out;
}

// ---------------------------------------------------------------- inputs

namespace {

void flatten_input(const InputValue& v, ScalarType t, size_t depth, std::vector<int64_t>& shape,
                   std::vector<Scalar>& out, Pos pos) {
  if (v.kind == InputValue::Kind::Scalar) {
    if (depth != shape.size())
      throw RunError("size", pos, "an array input has elements of different ranks");
    out.push_back(convert_input(v.scalar, t, pos));
    return;
  }
  if (depth == shape.size())
    shape.push_back(static_cast<int64_t>(v.elems.size()));
  else if (shape[depth] != static_cast<int64_t>(v.elems.size()))
    throw RunError("size", pos, "an array input is not rectangular");
  for (const InputValue& e : v.elems)
    flatten_input(e, t, depth + 1, shape, out, pos);
}

Scalar random_scalar(ScalarType t, std::mt19937_64& g) {
  int64_t k = std::uniform_int_distribution<int64_t>(-8, 8)(g);
  if (t == ScalarType::Bool) return Scalar::of_int(t, k > 0);
  if (is_float(t)) return Scalar::of_float(t, static_cast<double>(k) / 2);
  return Scalar::of_int(t, k);
}

} // namespace

Inputs make_inputs(const Def& def, const InputSet* set, uint64_t seed) {
  std::mt19937_64 g(seed);
  Inputs in;
  std::map<std::string, const InputValue*> given;
  Pos at = set ? set->pos : def.pos;
  if (set)
    for (const auto& [n, v] : set->values)
      given[n.s] = &v;
  for (const auto& [name, v] : given) {
    bool known = false;
    for (const Binding& b : def.params)
      known = known || b.name.s == name;
    if (!known) throw RunError("size", at, "the input '" + name + "' is not a parameter");
  }
  // Literal arrays first: their shapes may define size parameters.
  std::map<std::string, Data> arrays;
  for (const Binding& b : def.params) {
    if (!b.type || b.type->kind != Type::Kind::Array) continue;
    auto it = given.find(b.name.s);
    if (it == given.end() || it->second->kind != InputValue::Kind::Array) continue;
    Data d;
    d.is_array = true;
    d.elem = b.type->elem;
    flatten_input(*it->second, d.elem, 0, d.shape, d.elems, at);
    if (d.shape.size() != b.type->dims.size()) {
      // An empty array literal has rank 1 as written; pad with zero extents.
      if (d.elems.empty() && d.shape.size() < b.type->dims.size())
        d.shape.resize(b.type->dims.size(), 0);
      else
        throw RunError("size", at,
                       "the input '" + b.name.s + "' has rank " + std::to_string(d.shape.size()) +
                           ", its type has rank " + std::to_string(b.type->dims.size()));
    }
    for (size_t k = 0; k < d.shape.size(); ++k)
      if (const auto* v = std::get_if<SVar>(&b.type->dims[k]->node))
        if (!given.count(v->name) && !in.count(v->name)) {
          Data sz;
          sz.scalar = Scalar::of_int(ScalarType::I64, d.shape[k]);
          in[v->name] = sz;
        }
    arrays[b.name.s] = std::move(d);
  }
  for (const Binding& b : def.params) {
    if (!b.type || b.type->kind != Type::Kind::Scalar) continue;
    auto it = given.find(b.name.s);
    if (it == given.end()) {
      if (!in.count(b.name.s))
        throw RunError("size", at, "no input value for the scalar parameter '" + b.name.s + "'");
      continue;
    }
    if (it->second->kind != InputValue::Kind::Scalar)
      throw RunError("size", at, "the scalar parameter '" + b.name.s + "' is given an array");
    Data d;
    d.scalar = convert_input(it->second->scalar, b.type->elem, at);
    if (in.count(b.name.s) && !(in[b.name.s].scalar == d.scalar))
      throw RunError("size", at,
                     "'" + b.name.s + "' = " + d.scalar.to_string() +
                         " contradicts the shape of an array input");
    in[b.name.s] = d;
  }
  auto lookup = [&](const std::string& n, Pos p) -> Scalar {
    auto it = in.find(n);
    if (it == in.end() || it->second.is_array)
      throw RunError("size", p, "the size '" + n + "' is not a scalar parameter");
    return it->second.scalar;
  };
  for (const Binding& b : def.params) {
    if (!b.type || b.type->kind != Type::Kind::Array) continue;
    std::vector<int64_t> shape;
    for (const SExpP& d : b.type->dims)
      shape.push_back(as_int(eval_sexp(*d, lookup), d->pos, "a size"));
    int64_t n = product(shape, b.type->pos);
    if (n > (int64_t(1) << 28))
      throw RunError("resource", at,
                     "the input '" + b.name.s + "' has " + std::to_string(n) + " elements");
    auto it = arrays.find(b.name.s);
    Data d;
    if (it != arrays.end()) {
      d = it->second;
      if (d.shape != shape)
        throw RunError("size", at,
                       "the input '" + b.name.s + "' has shape " + index_text(d.shape) +
                           ", its type says " + index_text(shape));
    } else {
      d.is_array = true;
      d.elem = b.type->elem;
      d.shape = shape;
      auto git = given.find(b.name.s);
      auto kind = git == given.end() ? InputValue::Kind::Random : git->second->kind;
      if (kind == InputValue::Kind::Scalar)
        throw RunError("size", at, "the array parameter '" + b.name.s + "' is given a scalar");
      for (int64_t k = 0; k < n; ++k) {
        if (kind == InputValue::Kind::Iota)
          d.elems.push_back(is_float(d.elem) ? Scalar::of_float(d.elem, static_cast<double>(k))
                                             : Scalar::of_int(d.elem, k));
        else if (kind == InputValue::Kind::Zeros)
          d.elems.push_back(Scalar::zero(d.elem));
        else
          d.elems.push_back(random_scalar(d.elem, g));
      }
    }
    in[b.name.s] = std::move(d);
  }
  return in;
}

// ---------------------------------------------------------------- the machine

namespace {

struct Machine;

struct Block {
  Machine* m;
  int64_t id;
  std::string name;
  std::vector<Scalar> cells;
  std::vector<uint8_t> set; // 0: never written (reads as zero of any type)
  Block(Machine* mm, int64_t i, std::string n, int64_t size);
  ~Block();
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
};
using BlockP = std::shared_ptr<Block>;

struct ArrV {
  BlockP block;
  ConcreteLmad lay;
  ScalarType elem = ScalarType::I64;
  std::vector<int64_t> shape() const {
    std::vector<int64_t> s;
    for (auto& d : lay.dims)
      s.push_back(d.first);
    return s;
  }
};
struct MemV {
  BlockP block;
};
using Val = std::variant<Scalar, ArrV, MemV>;
/// The values of one statement or body: almost always one or two.
using Vals = boost::container::small_vector<Val, 2>;

/// Per-cell access record of one kernel execution (fig. 4.9).
struct CellAcc {
  int32_t writer = -1, r1 = -1, r2 = -1; // kernel bounds are checked to fit in int32
};

/// The access record of one cell for the kernel execution stamped `epoch`; a cell with
/// an older stamp has not been touched by the running kernel execution.
struct ShadowCell {
  uint32_t epoch = 0;
  CellAcc acc;
};

struct Tracker {
  Pos pos;
  int64_t iter = 0;
  uint32_t epoch = 0;        // this kernel execution's stamp
  int64_t cached_block = -1; // the block whose shadow `cached` points to
  ShadowCell* cached = nullptr;
  std::optional<Race> race;
};

struct Machine {
  Semantics sem;
  Limits lim;
  RunStats stats;
  int64_t live_bytes = 0;
  int64_t next_id = 0;
  std::vector<std::pair<const std::string*, Val>> env;
  std::vector<Tracker> trackers;
  std::vector<Race> races;
  // Race tracking (fig. 4.9): per kernel nesting depth, a shadow cell for every cell of
  // every block the kernels at that depth touch, stamped with the kernel execution that
  // last touched it; reused by later executions, dropped with the block.
  std::vector<std::unordered_map<int64_t, std::vector<ShadowCell>>> shadows;
  uint32_t next_epoch = 1;

  void push_tracker(Pos pos) {
    Tracker t;
    t.pos = pos;
    t.epoch = next_epoch++;
    trackers.push_back(t);
    if (shadows.size() < trackers.size()) shadows.resize(trackers.size());
  }

  void forget_block(int64_t id) {
    for (auto& s : shadows)
      s.erase(id);
    for (Tracker& t : trackers)
      if (t.cached_block == id) {
        t.cached_block = -1;
        t.cached = nullptr;
      }
  }

  Machine(Semantics s, Limits l) : sem(s), lim(l) {}
  // Blocks tell the machine when they die (forget_block): release them while the
  // machine's tables still exist.
  ~Machine() {
    env.clear();
    races.clear();
  }
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  // -------------------------------------------------------------- environment

  void bind(const std::string& n, Val v) { env.emplace_back(&n, std::move(v)); }

  static bool same(const std::string& a, const std::string& b) {
    // Cheap tests first: most names in scope differ in length or first letter.
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k) // names are short: no call to memcmp
      if (a[k] != b[k]) return false;
    return true;
  }

  /// The slot of the innermost binding of `n` (names are never shadowed: the only one).
  size_t slot_of(const std::string& n, Pos pos) const {
    for (size_t k = env.size(); k-- > 0;)
      if (same(*env[k].first, n)) return k;
    throw RunError("size", pos, "'" + n + "' is not bound");
  }

  const Val& lookup(const std::string& n, Pos pos) const { return env[slot_of(n, pos)].second; }

  /// lookup through the occurrence's slot hint: the slot where the binding was found
  /// last time, which holds it again whenever the same scopes are live (names are never
  /// shadowed, so a slot with the same spelling is the binding). Falls back to the scan.
  const Val& lookup(const std::string& n, Pos pos, const SlotHint& hint) const {
    auto h = static_cast<size_t>(hint.get()); // -1 becomes too large
    if (h < env.size() && same(*env[h].first, n)) {
      assert(h == slot_of(n, pos));
      return env[h].second;
    }
    h = slot_of(n, pos);
    hint.set(static_cast<int32_t>(h));
    return env[h].second;
  }
  const Val& lookup(const Name& n) const { return lookup(n.s, n.pos, n.hint); }

  Scalar scalar(const SVar& sv, Pos pos) const {
    const std::string& n = sv.name;
    const Val& v = lookup(n, pos, sv.hint);
    if (const auto* s = std::get_if<Scalar>(&v)) return *s;
    if (std::holds_alternative<MemV>(v)) return Scalar::of_int(ScalarType::I64, 0);
    throw RunError("elemtype", pos, "'" + n + "' is an array where a scalar is expected");
  }

  /// The array bound to `n`; the reference is valid until the environment changes.
  const ArrV& array_ref(const Name& n) const {
    const Val& v = lookup(n);
    if (const auto* a = std::get_if<ArrV>(&v)) return *a;
    throw RunError("elemtype", n.pos, "'" + n.s + "' is not an array");
  }
  ArrV array(const Name& n) const { return array_ref(n); }

  BlockP mem(const Name& n) const {
    const Val& v = lookup(n);
    if (const auto* a = std::get_if<MemV>(&v)) return a->block;
    throw RunError("elemtype", n.pos, "'" + n.s + "' is not a memory block");
  }

  Scalar eval(const SExp& e) {
    auto look = [this](const SVar& v, Pos p) { return scalar(v, p); };
    return eval_sexp_with(e, look);
  }
  int64_t eval_int(const SExp& e, const char* what) { return as_int(eval(e), e.pos, what); }

  void step(Pos pos, int64_t n = 1) {
    stats.steps += n;
    if (stats.steps > lim.max_steps)
      throw RunError("resource", pos,
                     "the run exceeds --max-steps " + std::to_string(lim.max_steps));
  }

  // -------------------------------------------------------------- heap

  BlockP new_block(const std::string& name, int64_t size, Pos pos) {
    if (size < 0)
      throw RunError("size", pos, "allocation of a negative size " + std::to_string(size));
    if (size > (lim.max_memory_bytes - live_bytes) / 16)
      throw RunError("resource", pos,
                     "allocating " + std::to_string(size) + " elements for '" + name +
                         "' exceeds --max-memory (" + std::to_string(lim.max_memory_bytes) +
                         " bytes, 16 per element; " + std::to_string(live_bytes) + " in use)");
    ++stats.allocs;
    return std::make_shared<Block>(this, next_id++, name, size);
  }

  void record(const Block& b, int64_t off, bool write) {
    for (size_t depth = 0; depth < trackers.size(); ++depth) {
      Tracker& t = trackers[depth];
      ++stats.checked;
      if (t.cached_block != b.id) {
        std::vector<ShadowCell>& sh = shadows[depth][b.id];
        if (sh.size() < b.cells.size()) sh.resize(b.cells.size());
        t.cached_block = b.id;
        t.cached = sh.data();
      }
      ShadowCell& cell = t.cached[off];
      if (cell.epoch != t.epoch) cell = ShadowCell{t.epoch, CellAcc{}};
      CellAcc& c = cell.acc;
      auto me = static_cast<int32_t>(t.iter);
      std::optional<std::pair<int32_t, bool>> clash; // (other iteration, other writes)
      if (write) {
        if (c.writer >= 0 && c.writer != me)
          clash = {{c.writer, true}};
        else if (c.r1 >= 0 && c.r1 != me)
          clash = {{c.r1, false}};
        else if (c.r2 >= 0 && c.r2 != me)
          clash = {{c.r2, false}};
        c.writer = me;
      } else {
        if (c.writer >= 0 && c.writer != me) clash = {{c.writer, true}};
        if (c.r1 < 0)
          c.r1 = me;
        else if (c.r1 != me && c.r2 < 0)
          c.r2 = me;
      }
      if (clash && !t.race) {
        Race r;
        r.kernel = t.pos;
        r.block = b.name;
        r.offset = off;
        if (write) {
          r.writer = me;
          r.other = clash->first;
          r.other_writes = clash->second;
        } else {
          r.writer = clash->first;
          r.other = me;
        }
        t.race = r;
      }
    }
  }

  Scalar read(const Block& b, int64_t off, ScalarType t, Pos pos) {
    if (off < 0 || off >= static_cast<int64_t>(b.cells.size()))
      throw RunError("bounds", pos,
                     "read of " + b.name + "[" + std::to_string(off) + "] outside the block of " +
                         std::to_string(b.cells.size()) + " elements");
    ++stats.reads;
    if (!trackers.empty()) record(b, off, false);
    if (!b.set[off]) return Scalar::zero(t);
    const Scalar& c = b.cells[off];
    if (c.t != t)
      throw RunError("elemtype", pos,
                     "reading " + b.name + "[" + std::to_string(off) + "], written as " +
                         scalar_type_name(c.t) + ", as " + scalar_type_name(t));
    return c;
  }

  void write(Block& b, int64_t off, const Scalar& v, Pos pos) {
    if (off < 0 || off >= static_cast<int64_t>(b.cells.size()))
      throw RunError("bounds", pos,
                     "write of " + b.name + "[" + std::to_string(off) + "] outside the block of " +
                         std::to_string(b.cells.size()) + " elements");
    ++stats.writes;
    if (!trackers.empty()) record(b, off, true);
    b.cells[off] = v;
    b.set[off] = 1;
  }

  /// Calls f(flat position, offset) for every element of the layout, row-major.
  template <class F> void each(const ConcreteLmad& lay, F f) {
    int64_t n = 1;
    for (auto& d : lay.dims)
      n *= std::max<int64_t>(d.first, 0);
    std::vector<int64_t> idx(lay.dims.size(), 0);
    int64_t off = lay.offset;
    for (int64_t t = 0; t < n; ++t) {
      f(t, off);
      for (size_t k = lay.dims.size(); k-- > 0;) {
        off += lay.dims[k].second;
        if (++idx[k] < lay.dims[k].first) break;
        off -= lay.dims[k].second * lay.dims[k].first;
        idx[k] = 0;
      }
    }
  }

  /// memcpy (fig. 4.10): all source elements are read (from the old heap) before the
  /// destination is written. A copy onto the same place is elided.
  void copy(const ArrV& src, const BlockP& dst, const ConcreteLmad& dlay, Pos pos) {
    std::vector<int64_t> ss = src.shape(), ds;
    for (auto& d : dlay.dims)
      ds.push_back(d.first);
    if (ss != ds)
      throw RunError("size", pos,
                     "copying an array of shape " + index_text(ss) + " into a place of shape " +
                         index_text(ds));
    if (src.block == dst && src.lay.offset == dlay.offset && src.lay.dims == dlay.dims) {
      ++stats.elided;
      stats.elided_elems += dlay.domain_size().value_or(0);
      return;
    }
    ++stats.copies;
    std::vector<Scalar> buf;
    each(src.lay,
         [&](int64_t, int64_t off) { buf.push_back(read(*src.block, off, src.elem, pos)); });
    step(pos, static_cast<int64_t>(buf.size()));
    stats.copied_elems += static_cast<int64_t>(buf.size());
    each(dlay, [&](int64_t t, int64_t off) { write(*dst, off, buf[static_cast<size_t>(t)], pos); });
  }

  /// A fresh row-major array (value semantics, and the heap's hidden temporaries).
  ArrV fresh(const std::string& name, ScalarType elem, const std::vector<int64_t>& shape, Pos pos) {
    ArrV a;
    a.elem = elem;
    a.block = new_block(name, product(shape, pos), pos);
    std::vector<Poly> ps(shape.begin(), shape.end());
    a.lay = *lmad_eval(row_major(ps), {});
    return a;
  }

  std::vector<int64_t> eval_dims(const Type& t) {
    std::vector<int64_t> out;
    for (const SExpP& d : t.dims)
      out.push_back(eval_int(*d, "a size"));
    return out;
  }

  ConcreteLmad eval_lmad(const LmadSyn& l) {
    ConcreteLmad c;
    auto get = [&](const SExpP& e) { return eval_int(*e, "an LMAD component"); };
    if (l.form == LmadSyn::Form::Explicit) {
      c.offset = get(l.offset);
      for (const auto& [n, s] : l.dims)
        c.dims.emplace_back(get(n), get(s));
      return c;
    }
    std::vector<int64_t> shape;
    for (const SExpP& a : l.args)
      shape.push_back(get(a));
    std::vector<Poly> ps(shape.begin(), shape.end());
    return *lmad_eval(l.form == LmadSyn::Form::Row ? row_major(ps) : col_major(ps), {});
  }

  /// The destination of an array-creating expression: fresh (value semantics) or the
  /// memory and LMAD of the binding's annotation (heap semantics).
  ArrV destination(const Binding& b, const std::vector<int64_t>& shape, ScalarType elem, Pos pos) {
    if (sem == Semantics::Value || !b.type || !b.type->ann)
      return fresh(b.name.s, elem, shape, pos);
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

  /// Applies index and slice entries; `full` tells whether every dimension was indexed.
  ConcreteLmad apply_entries(const ArrV& a, const std::vector<Entry>& es, const Name& arr,
                             bool& full) {
    const ConcreteLmad& l = a.lay;
    if (es.size() > l.dims.size())
      throw RunError("size", arr.pos,
                     std::to_string(es.size()) + " indices for '" + arr.s + "' of rank " +
                         std::to_string(l.dims.size()));
    ConcreteLmad r;
    r.offset = l.offset;
    full = es.size() == l.dims.size();
    for (size_t k = 0; k < l.dims.size(); ++k) {
      // Plain variables, not a structured binding: the lambda below captures `n`,
      // which clang 14 (the sanitised build's compiler) does not allow of a binding.
      const int64_t n = l.dims[k].first, s = l.dims[k].second;
      if (k >= es.size()) {
        r.dims.emplace_back(n, s);
        continue;
      }
      const Entry& e = es[k];
      int64_t start = eval_int(*e.start, "an index");
      auto oob = [&](const std::string& what) {
        return RunError("bounds", e.start->pos,
                        what + " out of bounds for dimension " + std::to_string(k) + " of '" +
                            arr.s + "' (size " + std::to_string(n) + ")");
      };
      if (e.is_index()) {
        if (start < 0 || start >= n) throw oob("index " + std::to_string(start));
        r.offset += start * s;
        continue;
      }
      full = false;
      int64_t count = eval_int(*e.count, "a slice count");
      int64_t stride = e.stride ? eval_int(*e.stride, "a slice stride") : 1;
      if (count < 0)
        throw RunError("size", e.count->pos, "negative slice count " + std::to_string(count));
      if (count > 0) {
        int64_t last = start + (count - 1) * stride;
        if (start < 0 || start >= n || last < 0 || last >= n)
          throw oob("slice " + std::to_string(start) + ":" + std::to_string(count) + ":" +
                    std::to_string(stride));
      }
      r.offset += start * s;
      r.dims.emplace_back(count, stride * s);
    }
    return r;
  }

  ConcreteLmad apply_lmad(const ArrV& a, const LmadSyn& ls, const Name& arr) {
    if (a.lay.dims.size() != 1)
      throw RunError("size", arr.pos, "an LMAD slice of '" + arr.s + "', which is not 1-d");
    ConcreteLmad in = eval_lmad(ls);
    auto [n, s] = a.lay.dims[0];
    int64_t lo = in.offset, hi = in.offset;
    bool empty = false;
    for (auto& [c, st] : in.dims) {
      if (c <= 0)
        empty = true;
      else
        (st < 0 ? lo : hi) += (c - 1) * st;
    }
    if (!empty && (lo < 0 || hi >= n))
      throw RunError("bounds", ls.pos,
                     "the LMAD slice reaches elements " + std::to_string(lo) + ".." +
                         std::to_string(hi) + " of '" + arr.s + "' (size " + std::to_string(n) +
                         ")");
    ConcreteLmad r;
    r.offset = a.lay.offset + in.offset * s;
    for (auto& [c, st] : in.dims)
      r.dims.emplace_back(c, st * s);
    return r;
  }

  // -------------------------------------------------------------- statements

  Vals run_body(const Body& b) {
    size_t mark = env.size();
    for (const Stmt& s : b.stmts)
      exec(s);
    Vals out;
    for (const Name& n : b.results)
      out.push_back(lookup(n));
    env.resize(mark);
    return out;
  }

  static bool is_element(const EIndex& x, const ArrV& a) {
    return x.entries.size() == a.lay.dims.size() && all_indices(x.entries);
  }

  /// The hot path of indexing: an element read, without building a layout.
  Scalar element(const EIndex& x, const ArrV& a, Pos pos) {
    int64_t off = a.lay.offset;
    for (size_t k = 0; k < x.entries.size(); ++k) {
      const Entry& e = x.entries[k];
      int64_t i = eval_int(*e.start, "an index");
      auto [n, s] = a.lay.dims[k];
      if (i < 0 || i >= n)
        throw RunError("bounds", e.start->pos,
                       "index " + std::to_string(i) + " out of bounds for dimension " +
                           std::to_string(k) + " of '" + x.arr.s + "' (size " + std::to_string(n) +
                           ")");
      off += i * s;
    }
    return read(*a.block, off, a.elem, pos);
  }

  void exec(const Stmt& s) {
    step(s.pos);
    if (const auto* a = std::get_if<SAssume>(&s.node)) {
      if (!as_bool(eval(*a->cond), a->cond->pos))
        throw RunError(a->kind, s.pos,
                       a->kind == "assume"
                           ? std::string("the assumption does not hold")
                           : "the run-time check " + print_sexp(*a->cond) + " does not hold");
      return;
    }
    const SLet& l = std::get<SLet>(s.node);
    if (l.pats.size() == 1) { // scalar statements bind their value directly
      if (const auto* x = std::get_if<EScalar>(&l.exp.node)) {
        bind(l.pats[0].name.s, eval(*x->e));
        return;
      }
      if (const auto* x = std::get_if<EIndex>(&l.exp.node)) {
        const ArrV& a = array_ref(x->arr);
        if (is_element(*x, a)) {
          Scalar v = element(*x, a, l.exp.pos);
          bind(l.pats[0].name.s, v);
          return;
        }
      }
    }
    Vals vs = eval_exp(l.pats, l.exp);
    for (size_t k = 0; k < l.pats.size(); ++k)
      bind(l.pats[k].name.s, std::move(vs[k]));
  }

  Val from_atom(const AtomArg& a) {
    if (const auto* lit = std::get_if<Lit>(&a.v)) return lit_value(*lit);
    const Name& n = std::get<Name>(a.v);
    return lookup(n);
  }

  /// Copy-on-update for value semantics: the updated array is a fresh copy.
  ArrV updatable(const ArrV& src, const Name& arr, Pos pos) {
    if (sem == Semantics::Heap) return src;
    ArrV d = fresh(arr.s, src.elem, src.shape(), pos);
    copy(src, d.block, d.lay, pos);
    return d;
  }

  /// Writes a scalar or an array value into the place `lay` of `dst`.
  void store(const Val& v, const BlockP& dst, const ConcreteLmad& lay, ScalarType elem, Pos pos) {
    if (const auto* s = std::get_if<Scalar>(&v)) {
      if (!lay.dims.empty())
        throw RunError("size", pos,
                       "a scalar where an array of rank " + std::to_string(lay.dims.size()) +
                           " is expected");
      if (s->t != elem)
        throw RunError("elemtype", pos,
                       std::string("a ") + scalar_type_name(s->t) +
                           " value stored in an array of " + scalar_type_name(elem));
      write(*dst, lay.offset, *s, pos);
      return;
    }
    const auto* a = std::get_if<ArrV>(&v);
    if (!a) throw RunError("elemtype", pos, "a memory block where a value is expected");
    if (a->elem != elem)
      throw RunError("elemtype", pos,
                     std::string("an array of ") + scalar_type_name(a->elem) +
                         " stored in an array of " + scalar_type_name(elem));
    copy(*a, dst, lay, pos);
  }

  static bool all_indices(const std::vector<Entry>& es) {
    for (const Entry& e : es)
      if (!e.is_index()) return false;
    return true;
  }

  static ConcreteLmad fix(const ConcreteLmad& l, int64_t i) {
    ConcreteLmad r;
    r.offset = l.offset + i * l.dims.at(0).second;
    r.dims.assign(l.dims.begin() + 1, l.dims.end());
    return r;
  }

  ScalarType binding_elem(const Binding& b, ScalarType dflt) {
    return b.type && b.type->kind == Type::Kind::Array ? b.type->elem : dflt;
  }

  Vals eval_exp(const std::vector<Binding>& pats, const Exp& e) {
    const Pos pos = e.pos;
    return std::visit(
        Overloaded{
            [&](const EScalar& x) -> Vals { return {eval(*x.e)}; },
            [&](const EIndex& x) -> Vals {
              const ArrV& a = array_ref(x.arr);
              if (is_element(x, a)) return {element(x, a, pos)};
              bool full = false;
              ConcreteLmad l = apply_entries(a, x.entries, x.arr, full);
              if (full && !l.dims.empty()) full = false;
              if (l.dims.empty() && x.entries.size() == a.lay.dims.size())
                return {read(*a.block, l.offset, a.elem, pos)};
              return {ArrV{a.block, l, a.elem}};
            },
            [&](const ELmadSlice& x) -> Vals {
              ArrV a = array(x.arr);
              return {ArrV{a.block, apply_lmad(a, x.lmad, x.arr), a.elem}};
            },
            [&](const ETranspose& x) -> Vals {
              ArrV a = array(x.arr);
              if (a.lay.dims.size() < 2)
                throw RunError("size", pos, "transpose of '" + x.arr.s + "' of rank < 2");
              std::swap(a.lay.dims[0], a.lay.dims[1]);
              return {a};
            },
            [&](const EIf& x) -> Vals {
              return run_body(as_bool(eval(*x.cond), x.cond->pos) ? x.then_body : x.else_body);
            },
            [&](const EKernel& x) -> Vals { return kernel(pats, x, pos); },
            [&](const ELoop& x) -> Vals {
              Vals vals;
              for (const Name& n : x.inits)
                vals.push_back(lookup(n));
              int64_t n = eval_int(*x.bound, "a loop bound");
              for (int64_t i = 0; i < n; ++i) {
                step(pos);
                size_t mark = env.size();
                for (size_t k = 0; k < x.params.size(); ++k)
                  bind(x.params[k].name.s, vals[k]);
                bind(x.iter.s, Scalar::of_int(ScalarType::I64, i));
                Vals next = run_body(x.body);
                env.resize(mark);
                vals = std::move(next);
              }
              return vals;
            },
            [&](const EUpdate& x) -> Vals {
              ArrV a = updatable(array(x.arr), x.arr, pos);
              bool full = false;
              ConcreteLmad place = apply_entries(a, x.entries, x.arr, full);
              store(from_atom(x.value), a.block, place, a.elem, x.value.pos);
              return {a};
            },
            [&](const EUpdateLmad& x) -> Vals {
              ArrV a = updatable(array(x.arr), x.arr, pos);
              ConcreteLmad place = apply_lmad(a, x.lmad, x.arr);
              store(lookup(x.value), a.block, place, a.elem, x.value.pos);
              return {a};
            },
            [&](const EConcat& x) -> Vals {
              ArrV a = array(x.a), b = array(x.b);
              std::vector<int64_t> sa = a.shape(), sb = b.shape();
              if (sa.empty() || sb.empty() ||
                  !std::equal(sa.begin() + 1, sa.end(), sb.begin() + 1, sb.end()))
                throw RunError("size", pos,
                               "concat of shapes " + index_text(sa) + " and " + index_text(sb));
              std::vector<int64_t> shape = sa;
              shape[0] += sb[0];
              ArrV d = destination(pats.at(0), shape, a.elem, pos);
              ConcreteLmad top = d.lay, bottom = d.lay;
              top.dims[0].first = sa[0];
              bottom.offset += sa[0] * d.lay.dims[0].second;
              bottom.dims[0].first = sb[0];
              copy(a, d.block, top, pos);
              copy(b, d.block, bottom, pos);
              return {d};
            },
            [&](const EIota& x) -> Vals {
              int64_t n = eval_int(*x.n, "an iota size");
              ArrV d = destination(pats.at(0), {n}, ScalarType::I64, pos);
              step(pos, n);
              each(d.lay, [&](int64_t t, int64_t off) {
                write(*d.block, off, Scalar::of_int(ScalarType::I64, t), pos);
              });
              return {d};
            },
            [&](const EReplicate& x) -> Vals {
              int64_t n = eval_int(*x.n, "a replicate count");
              if (n < 0)
                throw RunError("size", pos, "replicate of negative count " + std::to_string(n));
              Val v = from_atom(x.value);
              std::vector<int64_t> shape = {n};
              ScalarType elem = binding_elem(pats.at(0), ScalarType::I64);
              if (const auto* a = std::get_if<ArrV>(&v)) {
                for (int64_t s : a->shape())
                  shape.push_back(s);
                elem = a->elem;
              } else if (const auto* s = std::get_if<Scalar>(&v)) {
                elem = s->t;
              }
              ArrV d = destination(pats.at(0), shape, elem, pos);
              for (int64_t i = 0; i < n; ++i)
                store(v, d.block, fix(d.lay, i), elem, pos);
              return {d};
            },
            [&](const ECopy& x) -> Vals {
              ArrV a = array(x.arr);
              ArrV d = destination(pats.at(0), a.shape(), a.elem, pos);
              copy(a, d.block, d.lay, pos);
              return {d};
            },
            [&](const EScratch&) -> Vals {
              const Binding& b = pats.at(0);
              if (!b.type || b.type->kind != Type::Kind::Array)
                throw RunError("size", pos, "scratch needs an array type");
              // Value semantics: zeros. Heap semantics: the place as it is (uninitialised).
              return {destination(b, eval_dims(*b.type), b.type->elem, pos)};
            },
            [&](const EAlloc& x) -> Vals {
              int64_t n = eval_int(*x.size, "an allocation size");
              return {MemV{new_block(pats.at(0).name.s, n, pos)}};
            }},
        e.node);
  }

  Vals kernel(const std::vector<Binding>& pats, const EKernel& k, Pos pos) {
    int64_t n = eval_int(*k.bound, "a kernel bound");
    if (n < 0) throw RunError("size", k.bound->pos, "negative kernel bound " + std::to_string(n));
    if (n > INT32_MAX)
      throw RunError("resource", k.bound->pos, "a kernel of " + std::to_string(n) + " iterations");
    const Binding& b = pats.at(0);
    ScalarType elem = binding_elem(b, ScalarType::I64);
    std::optional<ArrV> dest;
    std::vector<int64_t> shape;
    if (b.type && b.type->kind == Type::Kind::Array) {
      shape = eval_dims(*b.type);
      if (!shape.empty()) shape[0] = n;
    }
    // Races are a property of the heap semantics; the value semantics does not trace.
    const bool trace = sem == Semantics::Heap;
    const bool outermost = trackers.empty();
    auto started = std::chrono::steady_clock::now();
    if (trace) push_tracker(pos);
    for (int64_t i = 0; i < n; ++i) {
      step(pos);
      if (trace) trackers.back().iter = i;
      size_t mark = env.size();
      bind(k.iter.s, Scalar::of_int(ScalarType::I64, i));
      Vals r = run_body(k.body);
      env.resize(mark);
      if (!dest) {
        if (shape.empty()) {
          shape = {n};
          if (const auto* a = std::get_if<ArrV>(&r.at(0)))
            for (int64_t s : a->shape())
              shape.push_back(s);
        }
        dest = destination(b, shape, elem, pos);
      }
      store(r.at(0), dest->block, fix(dest->lay, i), elem, k.body.pos);
    }
    if (trace) {
      Tracker t = std::move(trackers.back());
      trackers.pop_back();
      if (t.race) races.push_back(*t.race);
    }
    if (outermost)
      stats.kernel_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!dest) {
      if (shape.empty()) shape = {0};
      dest = destination(b, shape, elem, pos);
    }
    return {*dest};
  }

  Data result(const Val& v, Pos pos) {
    Data d;
    if (const auto* s = std::get_if<Scalar>(&v)) {
      d.scalar = *s;
      return d;
    }
    if (std::holds_alternative<MemV>(v)) {
      d.is_mem = true;
      return d;
    }
    const ArrV& a = std::get<ArrV>(v);
    d.is_array = true;
    d.elem = a.elem;
    d.shape = a.shape();
    each(a.lay, [&](int64_t, int64_t off) { d.elems.push_back(read(*a.block, off, a.elem, pos)); });
    return d;
  }
};

Block::Block(Machine* mm, int64_t i, std::string n, int64_t size)
    : m(mm), id(i), name(std::move(n)), cells(static_cast<size_t>(size)),
      set(static_cast<size_t>(size), 0) {
  m->live_bytes += size * 16;
  m->stats.peak_bytes = std::max(m->stats.peak_bytes, m->live_bytes);
}

Block::~Block() {
  m->forget_block(id);
  m->live_bytes -= static_cast<int64_t>(cells.size()) * 16;
}

// ---------------------------------------------------------------- IMP

struct ImpMachine {
  Machine& m;
  explicit ImpMachine(Machine& mm) : m(mm) {}

  Val* find(const std::string& n) {
    for (size_t k = m.env.size(); k-- > 0;)
      if (*m.env[k].first == n) return &m.env[k].second;
    return nullptr;
  }

  Val& var(const Name& n) {
    Val* v = find(n.s);
    if (!v) throw RunError("size", n.pos, "'" + n.s + "' is not declared");
    return *v;
  }

  void assign(const Name& n, Val v) { var(n) = std::move(v); }

  void run(const imp::Block& b) {
    for (const imp::Stmt& s : b)
      exec(s);
  }

  void exec(const imp::Stmt& s) {
    m.step(s.pos);
    std::visit(
        Overloaded{[&](const imp::Skip&) {},
                   [&](const imp::Decl& d) {
                     if (d.is_mem)
                       m.bind(d.name.s, MemV{});
                     else
                       m.bind(d.name.s, Scalar::zero(d.type));
                   },
                   [&](const imp::Assign& a) {
                     // `m <- m2` copies a label; anything else is a scalar expression.
                     if (const auto* sv = std::get_if<SVar>(&a.value->node)) {
                       const Val& src = m.lookup(sv->name, a.value->pos);
                       if (std::holds_alternative<MemV>(src)) {
                         assign(a.name, src);
                         return;
                       }
                     }
                     Val& dst = var(a.name);
                     Scalar v = m.eval(*a.value);
                     if (const auto* old = std::get_if<Scalar>(&dst); old && old->t != v.t)
                       throw RunError("elemtype", s.pos,
                                      std::string("assigning a ") + scalar_type_name(v.t) +
                                          " to '" + a.name.s + "' of type " +
                                          scalar_type_name(old->t));
                     dst = v;
                   },
                   [&](const imp::Alloc& a) {
                     int64_t n = m.eval_int(*a.size, "an allocation size");
                     assign(a.mem, MemV{m.new_block(a.mem.s, n, s.pos)});
                   },
                   [&](const imp::Read& r) {
                     const BlockP& b = block(r.mem);
                     int64_t off = m.eval_int(*r.index, "a memory index");
                     Val& dst = var(r.dst);
                     const auto* old = std::get_if<Scalar>(&dst);
                     if (!old)
                       throw RunError("elemtype", s.pos, "'" + r.dst.s + "' is not a scalar");
                     dst = m.read(*b, off, old->t, s.pos);
                   },
                   [&](const imp::Write& w) {
                     const BlockP& b = block(w.mem);
                     int64_t off = m.eval_int(*w.index, "a memory index");
                     m.write(*b, off, m.eval(*w.value), s.pos);
                   },
                   [&](const imp::If& i) {
                     run(as_bool(m.eval(*i.cond), i.cond->pos) ? i.then_block : i.else_block);
                   },
                   [&](const imp::Assert& a) {
                     if (!as_bool(m.eval(*a.cond), a.cond->pos))
                       throw RunError(a.kind, s.pos,
                                      (a.kind == "assume" ? std::string("the assumption does "
                                                                        "not hold")
                                                          : std::string("an index outside its "
                                                                        "array")) +
                                          " (IMP assert at " + std::to_string(s.pos.line) + ":" +
                                          std::to_string(s.pos.col) + ")");
                   },
                   [&](const imp::Loop& l) {
                     int64_t n = m.eval_int(*l.bound, "a loop bound");
                     if (n > INT32_MAX)
                       throw RunError("resource", l.bound->pos,
                                      "a loop of " + std::to_string(n) + " iterations");
                     if (l.parallel) m.push_tracker(s.pos);
                     for (int64_t i = 0; i < n; ++i) {
                       m.step(s.pos);
                       auto saved = l.parallel ? m.env : decltype(m.env){};
                       size_t mark = m.env.size();
                       if (l.parallel) m.trackers.back().iter = i;
                       m.bind(l.iter.s, Scalar::of_int(ScalarType::I64, i));
                       run(l.body);
                       if (l.parallel)
                         m.env = std::move(saved);
                       else
                         m.env.resize(mark);
                     }
                     if (l.parallel) {
                       Tracker t = std::move(m.trackers.back());
                       m.trackers.pop_back();
                       if (t.race) m.races.push_back(*t.race);
                     }
                   }},
        s.node);
  }

  const BlockP& block(const Name& n) {
    Val& v = var(n);
    auto* mv = std::get_if<MemV>(&v);
    if (!mv) throw RunError("elemtype", n.pos, "'" + n.s + "' is not a memory block");
    if (!mv->block) throw RunError("bounds", n.pos, "'" + n.s + "' has not been allocated");
    return mv->block;
  }
};

} // namespace

RunResult run_imp(const imp::Program& p, const Inputs& in, const Limits& lim) {
  RunResult res;
  Machine m(Semantics::Heap, lim);
  ImpMachine im(m);
  try {
    for (const imp::Param& prm : p.params) {
      auto it = in.find(prm.name.s);
      if (it == in.end()) throw RunError("size", prm.name.pos, "no input for '" + prm.name.s + "'");
      if (!prm.is_mem) {
        m.bind(prm.name.s, it->second.scalar);
        continue;
      }
      const Data& d = it->second;
      BlockP b = m.new_block(prm.name.s, static_cast<int64_t>(d.elems.size()), prm.name.pos);
      for (size_t k = 0; k < d.elems.size(); ++k)
        m.write(*b, static_cast<int64_t>(k), d.elems[k], prm.name.pos);
      m.bind(prm.name.s, MemV{b});
    }
    im.run(p.body);
    for (const Name& r : p.results) {
      const Val& v = m.lookup(r);
      Data d;
      if (const auto* s = std::get_if<Scalar>(&v)) {
        d.scalar = *s;
      } else {
        const BlockP& b = im.block(r);
        d.is_array = true;
        d.elem = ScalarType::I64;
        for (size_t k = 0; k < b->cells.size(); ++k)
          if (b->set[k]) {
            d.elem = b->cells[k].t;
            break;
          }
        d.shape = {static_cast<int64_t>(b->cells.size())};
        for (size_t k = 0; k < b->cells.size(); ++k)
          d.elems.push_back(m.read(*b, static_cast<int64_t>(k), d.elem, r.pos));
      }
      res.results.push_back(std::move(d));
    }
  } catch (const RunError& e) {
    res.error = e;
  }
  res.races = m.races;
  res.stats = m.stats;
  return res;
}

RunResult run_program(const Program& p, Semantics s, const Inputs& in, const Limits& lim) {
  RunResult res;
  Machine m(s, lim);
  const Def& def = p.def;
  try {
    // Scalars first (sizes of array parameters and of memory blocks).
    for (const Binding& b : def.params) {
      if (!b.type || b.type->kind != Type::Kind::Scalar) continue;
      auto it = in.find(b.name.s);
      if (it == in.end()) throw RunError("size", b.name.pos, "no input for '" + b.name.s + "'");
      m.bind(b.name.s, it->second.is_mem ? Scalar::of_int(ScalarType::I64, 0) : it->second.scalar);
    }
    // Memory parameters hold, row-major, the arrays placed in them.
    for (const Binding& b : def.params) {
      if (!b.type || b.type->kind != Type::Kind::Mem) continue;
      int64_t size = 0;
      for (const Binding& a : def.params)
        if (a.type && a.type->ann && a.type->ann->mem.s == b.name.s) {
          ConcreteLmad l = m.eval_lmad(a.type->ann->lmad);
          auto pts = l.domain_size();
          if (pts && *pts > 0) {
            int64_t hi = l.offset;
            for (auto& [c, st] : l.dims)
              if (st > 0) hi += (c - 1) * st;
            size = std::max(size, hi + 1);
          }
        }
      m.bind(b.name.s, MemV{m.new_block(b.name.s, size, b.name.pos)});
    }
    for (const Binding& b : def.params) {
      if (!b.type || b.type->kind != Type::Kind::Array) continue;
      auto it = in.find(b.name.s);
      if (it == in.end() || !it->second.is_array)
        throw RunError("size", b.name.pos, "no array input for '" + b.name.s + "'");
      const Data& d = it->second;
      ArrV a = m.destination(b, d.shape, d.elem, b.name.pos);
      m.each(a.lay, [&](int64_t t, int64_t off) {
        m.write(*a.block, off, d.elems[static_cast<size_t>(t)], b.name.pos);
      });
      m.bind(b.name.s, a);
    }
    Vals out = m.run_body(def.body);
    for (size_t k = 0; k < out.size(); ++k)
      res.results.push_back(m.result(out[k], def.body.results[k].pos));
  } catch (const RunError& e) {
    res.error = e;
  }
  res.races = m.races;
  res.stats = m.stats;
  return res;
}

} // namespace funmem
