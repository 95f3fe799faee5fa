// Internals of the interpreters (see interp.h): the values, blocks and race records of
// the machine that runs FUN (value semantics) and FUNMEM (heap semantics) programs,
// shared by machine.cpp (blocks, copies, layouts), eval.cpp (statements and
// expressions), imp_run.cpp (IMP programs), data.cpp (inputs and results) and
// interp.cpp (the entry points). The hot accessors (read, write, record, step, lookups)
// are defined in the class so that every file inlines them.
#pragma once

#include "interp/interp.h"
#include "interp/liveness.h"

#include "ir/convert.h"
#include "ir/lmad.h"
#include "ir/overloaded.h"
#include "ir/printer.h"

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <limits>
#include <memory>
#include <random>
#include <unordered_map>
#include <unordered_set>

namespace funmem::machine {

std::string index_text(const std::vector<int64_t>& idx);
/// Row-major multi-index of flat position t in `shape`.
std::vector<int64_t> unflatten(const std::vector<int64_t>& shape, int64_t t);
int64_t product(const std::vector<int64_t>& shape, Pos pos);

/// Per-cell access record of one kernel execution (fig. 4.9).
struct CellAcc {
  int32_t writer = -1, r1 = -1, r2 = -1; // kernel bounds are checked to fit in int32
};

struct Machine;

/// The storage of a block: its cells and their written flags.
struct Storage {
  std::vector<Scalar> cells;
  std::vector<uint8_t> set; // 0: never written (reads as zero of any type)
};

/// Storage of dead blocks kept for the next blocks of about their size, so that a
/// program that allocates in a loop does not return its memory to the system and fault
/// it in again every iteration. Blocks below kMinCells are left to the allocator; at most
/// kPerClass storages of each power-of-two capacity class and kMaxBytes in all are kept
/// (the oldest of a full class goes). Storage handed out again has every cell unwritten.
class StoragePool {
public:
  static constexpr size_t kMinCells = 1024;
  static constexpr size_t kPerClass = 2;
  static constexpr size_t kMaxBytes = size_t{64} << 20;
  /// Storage of `size` unwritten cells, recycled when a kept one is large enough (and
  /// at most twice as large).
  Storage take(size_t size);
  void give(Storage s);

private:
  static size_t bytes_of(const Storage& s) {
    return s.cells.capacity() * sizeof(Scalar) + s.set.capacity();
  }
  std::vector<std::vector<Storage>> classes_; // by floor(log2(cells' capacity))
  size_t bytes_ = 0;
};

/// Race records of one block at one kernel depth, in pages of kShadowPage cells: a page
/// is taken (all records empty) when the running kernel execution at that depth first
/// touches one of its cells, and given back when the execution ends, so that race
/// tracking holds records only for the cells the running executions touch.
constexpr size_t kShadowPage = 64;
using ShadowTable = std::vector<CellAcc*>; // page k: cells [k * kShadowPage, ...)

/// Empty shadow pages for the taking.
class ShadowPages {
public:
  CellAcc* take() {
    if (free_.empty()) {
      owned_.push_back(std::make_unique<CellAcc[]>(kShadowPage));
      return owned_.back().get();
    }
    CellAcc* p = free_.back();
    free_.pop_back();
    std::fill(p, p + kShadowPage, CellAcc{});
    return p;
  }
  void give(CellAcc* p) { free_.push_back(p); }

private:
  std::vector<std::unique_ptr<CellAcc[]>> owned_;
  std::vector<CellAcc*> free_;
};

/// The cell audit's record of one cell (Limits::audit), in ticks of the audit's clock (0:
/// never): its last write and where it is; the last `scratch` array placed on it (which
/// writes nothing: the value semantics reads 0 where the cell may hold an old value); the
/// last copy onto itself that was elided (the values it would have written are there).
struct AuditCell {
  uint64_t when = 0, scratch = 0, copied = 0;
  Pos who, scratch_pos;
};

struct Block {
  Machine* m;
  int64_t id;
  std::string name;
  std::vector<Scalar> cells;
  std::vector<uint8_t> set;     // 0: never written (reads as zero of any type)
  std::vector<AuditCell> audit; // one per cell when the machine audits, else empty
  Block(Machine* mm, int64_t i, std::string n, int64_t size, Storage storage);
  ~Block();
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
};
using BlockP = std::shared_ptr<Block>;

/// The cell audit's record of an array built by updates (Limits::audit): an update's
/// array owns the cells of its place since its tick, and its other cells are those of
/// the array it updated (`parent`, whose tick then applies); a node without a parent
/// owns every cell. Chains are cut at kMaxDepth nodes (the last owns every cell: the
/// audit then only knows when the whole array was complete).
struct AuditNode {
  static constexpr int kMaxDepth = 16;
  uint64_t since = 0;
  std::shared_ptr<const AuditNode> parent;
  std::unordered_set<int64_t> place;
  int depth = 0;
};

struct ArrV {
  BlockP block;
  ConcreteLmad lay;
  ScalarType elem = ScalarType::I64;
  uint64_t since = 0; // the audit's clock when the contents were complete (views: the base's)
  std::shared_ptr<const AuditNode> chain; // an updated array's owners of cells (audit)
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

struct Tracker {
  Pos pos;
  int64_t iter = 0;
  int64_t cached_block = -1; // the block whose shadow table `cached` points to
  CellAcc** cached = nullptr;
  std::vector<std::pair<int64_t, size_t>> touched; // (block, page) taken by this execution
  std::optional<Race> race;
};

struct Machine {
  Semantics sem;

  Limits lim;
  bool auditing = false; // the cell audit (Limits::audit), heap semantics only
  uint64_t clock = 0;    // the audit's clock: one tick per write
  RunStats stats;
  int64_t live_bytes = 0;
  int64_t next_id = 0;
  std::vector<std::pair<const std::string*, Val>> env;
  // Value semantics: which bindings each body drops when (liveness.h), and the names
  // the statement being executed mentions last.
  std::optional<Liveness> live;
  const std::vector<std::string>* dying = nullptr;
  std::vector<Tracker> trackers;
  std::vector<Race> races;

  // Race tracking (fig. 4.9): per kernel nesting depth, the shadow table of every block
  // the kernels at that depth touch (ShadowTable: pages of the running execution).
  std::vector<std::unordered_map<int64_t, ShadowTable>> shadows;
  ShadowPages shadow_pages;
  StoragePool storage_pool;
  void push_tracker(Pos pos);
  /// Ends the innermost kernel execution's tracking: its pages go back, its race (if
  /// any) is recorded.
  void pop_tracker();
  void forget_block(int64_t id);
  Machine(Semantics s, Limits l) : sem(s), lim(l) {}

  // Blocks tell the machine when they die (forget_block): release them while the
  // machine's tables still exist.
  ~Machine();
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
    if (const auto* a = std::get_if<ArrV>(&v)) {
      if (!a->block) dropped(n);
      return *a;
    }
    throw RunError("elemtype", n.pos, "'" + n.s + "' is not an array");
  }
  [[noreturn]] static void dropped(const Name& n);

  /// Value semantics: drops the arrays bound to `names` (their last mention has run).
  void drop(const std::vector<std::string>& names);
  /// Whether the statement being executed mentions `n` last.
  bool dies_here(const std::string& n) const {
    return dying && std::find(dying->begin(), dying->end(), n) != dying->end();
  }
  /// The array bound to `n`, moved out of the environment (its binding is dropped).
  ArrV take(const Name& n);

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

  /// An address (an index into a block, an offset or stride of a layout): its + - * / %,
  /// negation, min, max and abs over the integers, the value taken modulo 2^64 (other
  /// operations as eval_int; scalar.h, wrapped_int). The
  /// address a program accesses is then exact whenever it lies inside its block (the
  /// block's bounds check follows), however large the terms that make it; a layout
  /// stride of a dimension of one element, or of an empty layout, is never used.
  int64_t eval_address(const SExp& e, const char* what);

  void step(Pos pos, int64_t n = 1) {
    stats.steps += n;
    if (stats.steps > lim.max_steps)
      throw RunError("resource", pos,
                     "the run exceeds --max-steps " + std::to_string(lim.max_steps));
  }

  // -------------------------------------------------------------- heap

  BlockP new_block(const std::string& name, int64_t size, Pos pos);
  void record(const Block& b, int64_t off, bool write) {
    for (size_t depth = 0; depth < trackers.size(); ++depth) {
      Tracker& t = trackers[depth];
      ++stats.checked;
      if (t.cached_block != b.id) {
        ShadowTable& table = shadows[depth][b.id];
        if (table.empty()) table.assign((b.cells.size() + kShadowPage - 1) / kShadowPage, nullptr);
        t.cached_block = b.id;
        t.cached = table.data();
      }
      const auto page = static_cast<size_t>(off) / kShadowPage;
      CellAcc*& records = t.cached[page];
      if (!records) {
        records = shadow_pages.take();
        t.touched.emplace_back(b.id, page);
      }
      CellAcc& c = records[static_cast<size_t>(off) % kShadowPage];
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
    if (auditing) {
      AuditCell& c = b.audit[static_cast<size_t>(off)];
      c.when = ++clock;
      c.who = pos;
    }
  }

  /// The cell audit of a read of `a` at offset `off` (inside the block): the cell must
  /// have been written or lie under a scratch array, not after `a` was complete; and when
  /// `a` may see a scratch array placed on an old value (no write or elided copy since),
  /// that value is not the value semantics' 0.
  void audit_read(const ArrV& a, int64_t off, Pos pos) const {
    if (!auditing || off < 0 || off >= static_cast<int64_t>(a.block->audit.size())) return;
    const AuditCell& c = a.block->audit[static_cast<size_t>(off)];
    uint64_t since = a.since; // the tick of the array that owns the cell
    for (const AuditNode* n = a.chain.get(); n; n = n->parent.get())
      if (!n->parent || n->place.count(off)) {
        since = n->since;
        break;
      }
    const bool stale = c.when != 0 && c.scratch > c.when && c.scratch <= since &&
                       !(c.copied > c.scratch && c.copied <= since);
    if ((c.when == 0 && c.scratch == 0) || c.when > since || stale) {
      // A cell another iteration of a running kernel wrote is a race, which the race
      // records report.
      for (const Tracker& t : trackers)
        if (t.race) return;
      audit_failure(a, off, c, since, pos);
    }
  }
  [[noreturn]] void audit_failure(const ArrV& a, int64_t off, const AuditCell& c, uint64_t since,
                                  Pos pos) const;
  /// The audit of a `scratch` array placed on `a`, and of an elided copy onto `a`.
  void audit_scratch(const ArrV& a, Pos pos);
  void audit_elided(const ArrV& src, Pos pos);
  /// The audit of an update: `audit_place` records its place, `audit_complete` stamps
  /// the array a statement built (an update's with a node of its chain).
  std::optional<std::unordered_set<int64_t>> audit_place_;
  void audit_place(const ConcreteLmad& place);
  void audit_complete(ArrV& a);

  /// Calls f(flat position, offset) for every element of the layout, row-major.
  template <class F> void each(const ConcreteLmad& lay, F f) {
    // No element where a count is 0 or less, whatever the others' product.
    int64_t n = 1;
    for (auto& d : lay.dims)
      if (d.first <= 0) n = 0;
    for (auto& d : lay.dims)
      if (n && __builtin_mul_overflow(n, d.first, &n)) n = std::numeric_limits<int64_t>::max();
    std::vector<int64_t> idx(lay.dims.size(), 0);
    int64_t off = lay.offset;
    for (int64_t t = 0; t < n; ++t) {
      f(t, off);
      for (size_t k = lay.dims.size(); k-- > 0;) {
        off = wrap_add(off, lay.dims[k].second);
        if (++idx[k] < lay.dims[k].first) break;
        off = wrap_sub(off, wrap_mul(lay.dims[k].second, lay.dims[k].first));
        idx[k] = 0;
      }
    }
  }

  /// memcpy (fig. 4.10): all source elements are read (from the old heap) before the
  /// destination is written. A copy onto the same place is elided.
  void copy(const ArrV& src, const BlockP& dst, const ConcreteLmad& dlay, Pos pos);

  /// A fresh row-major array (value semantics, and the heap's hidden temporaries).
  ArrV fresh(const std::string& name, ScalarType elem, const std::vector<int64_t>& shape, Pos pos);
  std::vector<int64_t> eval_dims(const Type& t);
  /// A size (a type's, a layout's count, an `alloc`'s): its + - * and negation over the
  /// integers, the rest as eval_int; a value outside i64 is a resource error.
  int64_t eval_size(const SExp& e, const char* what);
  ConcreteLmad eval_lmad(const LmadSyn& l);
  /// The cells a parameter block needs for array parameter `a` placed in it: one past
  /// its greatest address (0 when it is empty). Its addresses are integers here, not
  /// modulo 2^64: the offset and the strides of its dimensions of two elements or more
  /// are evaluated with trapping arithmetic, an address below 0 is a bounds error and
  /// one of 2^63 - 1 or more a resource error. Every address of a parameter then lies
  /// inside its block as an integer (docs/interpreters.md).
  int64_t parameter_cells(const Binding& a, const std::string& block);

  /// The destination of an array-creating expression: fresh (value semantics) or the
  /// memory and LMAD of the binding's annotation (heap semantics).
  ArrV destination(const Binding& b, const std::vector<int64_t>& shape, ScalarType elem, Pos pos);

  // -------------------------------------------------------------- views

  /// Applies index and slice entries; `full` tells whether every dimension was indexed.
  ConcreteLmad apply_entries(const ArrV& a, const std::vector<Entry>& es, const Name& arr,
                             bool& full);

  ConcreteLmad apply_lmad(const ArrV& a, const LmadSyn& ls, const Name& arr);

  // -------------------------------------------------------------- statements

  Vals run_body(const Body& b);
  static bool is_element(const EIndex& x, const ArrV& a);

  /// The hot path of indexing: an element read, without building a layout.
  Scalar element(const EIndex& x, const ArrV& a, Pos pos);
  void exec(const Stmt& s);
  Val from_atom(const AtomArg& a);

  /// The array an update of `arr` writes: under value semantics a fresh copy, unless
  /// the update mentions `arr` last (and not as its value, `value`) and no other value
  /// holds its block, when it is `arr`'s array itself; under heap semantics `arr`'s.
  ArrV updatable(const Name& arr, const std::string& value, Pos pos);

  /// Writes a scalar or an array value into the place `lay` of `dst`.
  void store(const Val& v, const BlockP& dst, const ConcreteLmad& lay, ScalarType elem, Pos pos);
  static bool all_indices(const std::vector<Entry>& es);
  static ConcreteLmad fix(const ConcreteLmad& l, int64_t i);
  ScalarType binding_elem(const Binding& b, ScalarType dflt);
  Vals run_loop(const ELoop& x, Pos pos);
  Vals concat(const std::vector<Binding>& pats, const EConcat& x, Pos pos);
  Vals replicate(const std::vector<Binding>& pats, const EReplicate& x, Pos pos);
  Vals eval_exp(const std::vector<Binding>& pats, const Exp& e);
  Vals kernel(const std::vector<Binding>& pats, const EKernel& k, Pos pos);
  Data result(const Val& v, Pos pos);
};

} // namespace funmem::machine
