// FUNMEM mutants of generated programs (see mutate.h).
#include "verifier/mutate.h"

#include "analysis/ast_util.h"
#include "analysis/fun_to_funmem.h"
#include "ir/convert.h"
#include "ir/names.h"
#include "ir/overloaded.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"

#include <functional>
#include <random>
#include <set>
#include <vector>

namespace funmem {

namespace {

/// A statement of the lowered program, with the body holding it and the kernels around it.
struct Site {
  Body* body = nullptr;
  size_t idx = 0;
  std::vector<std::pair<Body*, size_t>> kernels; // (body holding the kernel, its index)
  SLet& let() const { return std::get<SLet>(body->stmts[idx].node); }
};

void collect(Body& b, std::vector<std::pair<Body*, size_t>>& kernels, std::vector<Site>& out) {
  for (size_t k = 0; k < b.stmts.size(); ++k) {
    if (!std::holds_alternative<SLet>(b.stmts[k].node)) continue;
    out.push_back({&b, k, kernels});
    SLet& l = std::get<SLet>(b.stmts[k].node);
    if (auto* x = std::get_if<EKernel>(&l.exp.node)) {
      kernels.emplace_back(&b, k);
      collect(x->body, kernels, out);
      kernels.pop_back();
    } else {
      each_body(b.stmts[k], [&](Body& in) { collect(in, kernels, out); });
    }
  }
}

bool fresh(const Exp& e) {
  return std::holds_alternative<EIota>(e.node) || std::holds_alternative<EReplicate>(e.node) ||
         std::holds_alternative<EScratch>(e.node) || std::holds_alternative<ECopy>(e.node) ||
         std::holds_alternative<EConcat>(e.node) || std::holds_alternative<EKernel>(e.node);
}

/// Every binding (let patterns and loop parameters) of the definition.
void bindings(Body& b, std::vector<Binding*>& out) {
  for (Stmt& s : b.stmts) {
    if (auto* l = std::get_if<SLet>(&s.node)) {
      for (Binding& p : l->pats)
        out.push_back(&p);
      if (auto* lp = std::get_if<ELoop>(&l->exp.node))
        for (Binding& p : lp->params)
          out.push_back(&p);
    }
    each_body(s, [&](Body& in) { bindings(in, out); });
  }
}

/// Gives every binding annotated exactly as `old` the annotation `now` (an array's
/// updates and loop parameters keep its layout, so they move with it).
void reannotate(Program& p, const MemAnn& old, const MemAnn& now) {
  const std::string key = old.mem.s + "|" + print_lmad(old.lmad);
  std::vector<Binding*> bs;
  bindings(p.def.body, bs);
  for (Binding* b : bs)
    if (b->type && b->type->ann &&
        b->type->ann->mem.s + "|" + print_lmad(b->type->ann->lmad) == key)
      b->type->ann = now;
}

using Rng = std::mt19937_64;

template <class T> T& pick(std::vector<T>& v, Rng& rng) {
  return v[static_cast<size_t>(rng() % v.size())];
}

/// The array a fresh creation binds, if the statement is one.
Binding* created(const Site& s) {
  SLet& l = s.let();
  if (l.pats.size() != 1 || !fresh(l.exp)) return nullptr;
  Binding& b = l.pats[0];
  return b.type && b.type->kind == Type::Kind::Array && b.type->ann ? &b : nullptr;
}

std::string shrink_alloc(std::vector<Site>& sites, Rng& rng) {
  std::vector<Site> allocs;
  for (const Site& s : sites)
    if (std::holds_alternative<EAlloc>(s.let().exp.node)) allocs.push_back(s);
  if (allocs.empty()) return "";
  Site& s = pick(allocs, rng);
  SExpP& size = std::get<EAlloc>(s.let().exp.node).size;
  const int how = static_cast<int>(rng() % 3);
  size = how == 0   ? mk_bin(BinOp::Sub, size, mk_int(1))
         : how == 1 ? mk_int(0)
                    : mk_bin(BinOp::Div, size, mk_int(2));
  return "alloc of " + s.let().pats[0].name.s + " made smaller (" + print_sexp(*size) + ")";
}

/// An i64 parameter of the definition (a size the prover knows nothing of), if any.
std::optional<std::string> size_parameter(const Program& p, Rng& rng) {
  std::vector<std::string> names;
  for (const Binding& b : p.def.params)
    if (b.type && b.type->kind == Type::Kind::Scalar && b.type->elem == ScalarType::I64)
      names.push_back(b.name.s);
  if (names.empty()) return std::nullopt;
  return pick(names, rng);
}

std::string shift_layout(Program& p, std::vector<Site>& sites, Rng& rng) {
  std::vector<Binding*> arrays;
  for (const Site& s : sites)
    if (Binding* b = created(s)) arrays.push_back(b);
  if (arrays.empty()) return "";
  Binding* b = pick(arrays, rng);
  static const int64_t shifts[] = {
      1, -1, 2, int64_t{1} << 62, -(int64_t{1} << 62), int64_t{1} << 61, 0};
  const int64_t k = shifts[rng() % std::size(shifts)];
  // 0: by a size times 2^61, which no fact bounds (the addresses may wrap).
  auto n = k == 0 ? size_parameter(p, rng) : std::nullopt;
  const Poly by = n ? Poly::var(*n) * Poly(int64_t{1} << 61) : Poly(k == 0 ? 3 : k);
  const MemAnn old = *b->type->ann;
  MemAnn now = old;
  SymLmad l = sym_lmad(old.lmad);
  l.offset = l.offset + by;
  now.lmad = explicit_syn(l);
  reannotate(p, old, now);
  return "layout of " + b->name.s + " moved by " + by.to_string();
}

std::string share_block(Program& p, std::vector<Site>& sites, Rng& rng) {
  std::vector<Binding*> arrays;
  for (const Site& s : sites)
    if (Binding* b = created(s)) arrays.push_back(b);
  if (arrays.size() < 2) return "";
  Binding* to = pick(arrays, rng);
  Binding* moved = pick(arrays, rng);
  if (to == moved || to->type->elem != moved->type->elem) return "";
  const MemAnn old = *moved->type->ann;
  MemAnn now = old;
  now.mem = to->type->ann->mem;
  SymLmad l = sym_lmad(old.lmad);
  const int64_t k = static_cast<int64_t>(rng() % 4);
  // 3: a size times 2^61 away, which no fact bounds (its addresses may wrap).
  auto n = k == 3 ? size_parameter(p, rng) : std::nullopt;
  l.offset = l.offset + (n ? Poly::var(*n) * Poly(int64_t{1} << 61) : Poly(k % 3));
  now.lmad = explicit_syn(l);
  reannotate(p, old, now);
  return moved->name.s + " moved into " + now.mem.s + ", the block of " + to->name.s;
}

std::string alloc_out_of_kernel(std::vector<Site>& sites, Rng& rng) {
  std::vector<Site> allocs;
  for (const Site& s : sites) {
    if (s.kernels.empty() || !std::holds_alternative<EAlloc>(s.let().exp.node)) continue;
    // Only an allocation of the kernel's own body whose size names nothing of it.
    auto [outer, k] = s.kernels.back();
    auto& kx = std::get<EKernel>(std::get<SLet>(outer->stmts[k].node).exp.node);
    if (s.body != &kx.body) continue;
    std::set<std::string> local, used;
    bound_in(kx.body, local);
    local.insert(kx.iter.s);
    sexp_vars(*std::get<EAlloc>(s.let().exp.node).size, used);
    bool free = true;
    for (const std::string& v : used)
      free = free && !local.count(v);
    if (free) allocs.push_back(s);
  }
  if (allocs.empty()) return "";
  Site s = pick(allocs, rng);
  auto [outer, k] = s.kernels.back();
  Stmt st = s.body->stmts[s.idx];
  const std::string name = s.let().pats[0].name.s;
  s.body->stmts.erase(s.body->stmts.begin() + static_cast<long>(s.idx));
  outer->stmts.insert(outer->stmts.begin() + static_cast<long>(k), st);
  return "alloc of " + name + " moved out of its kernel (its threads share it)";
}

/// `let (name : T) = e` for a scalar.
Stmt scalar_let(const std::string& name, ScalarType elem, Exp e, Pos pos) {
  Binding b;
  b.name = Name{name, pos};
  Type t;
  t.elem = elem;
  b.type = t;
  SLet l;
  l.pats.push_back(b);
  l.exp = std::move(e);
  return Stmt{l, pos};
}

/// `let (name : mem) = alloc size`.
Stmt mem_let(const std::string& name, int64_t size, Pos pos) {
  Stmt st = scalar_let(name, ScalarType::I64, Exp{EAlloc{mk_int(size)}, pos}, pos);
  std::get<SLet>(st.node).pats[0].type->kind = Type::Kind::Mem;
  return st;
}

/// `let (name : [count]T @mem -> l) = e`.
Stmt array_let(const std::string& name, ScalarType elem, int64_t count, const std::string& mem,
               const SymLmad& lay, Exp e, Pos pos) {
  Stmt st = scalar_let(name, elem, std::move(e), pos);
  Type& t = *std::get<SLet>(st.node).pats[0].type;
  t.kind = Type::Kind::Array;
  t.dims.push_back(mk_int(count));
  t.ann = MemAnn{Name{mem, pos}, explicit_syn(lay)};
  return st;
}

SExpP call2(Fn f, SExpP a, SExpP b) {
  SCall c{f, {}};
  c.args.push_back(std::move(a));
  c.args.push_back(std::move(b));
  return SExp{std::move(c), Pos{}};
}

/// `let (tmp : [2]T @m -> off + {(2 : 1)}) = replicate 2 0`.
Stmt temporary(const std::string& name, const std::string& mem, ScalarType elem, const Poly& off,
               Pos pos) {
  SymLmad l;
  l.offset = off;
  l.dims.emplace_back(Poly(2), Poly(1));
  Lit zero;
  zero.type = elem;
  return array_let(name, elem, 2, mem, l, Exp{EReplicate{mk_int(2), AtomArg{zero, pos}}, pos}, pos);
}

std::string temporary_in_block(Program& p, std::vector<Site>& sites, Rng& rng) {
  // Loops with an array parameter in a memory parameter, and ifs returning a block.
  std::vector<std::function<std::string()>> options;
  const std::set<std::string> used = bound_names(p.def);
  const std::string tmp = fresh_name(used, "tmp");
  const Poly off(static_cast<int64_t>(rng() % 4));
  for (const Site& s : sites) {
    SLet& l = s.let();
    for (size_t j = 1; j < l.pats.size(); ++j) {
      const Binding& a = l.pats[j];
      if (!a.type || !a.type->ann || a.type->ann->mem.s != l.pats[j - 1].name.s) continue;
      const ScalarType elem = a.type->elem;
      const std::string rm = l.pats[j - 1].name.s;
      // After the statement, in its result block.
      options.push_back([=] {
        s.body->stmts.insert(s.body->stmts.begin() + static_cast<long>(s.idx) + 1,
                             temporary(tmp, rm, elem, off, s.body->stmts[s.idx].pos));
        return tmp + " created in " + rm + " after the statement at line " +
               std::to_string(s.body->stmts[s.idx].pos.line);
      });
      if (auto* lp = std::get_if<ELoop>(&l.exp.node); lp && j < lp->params.size()) {
        const std::string pm = lp->params[j - 1].name.s;
        options.push_back([=] {
          lp->body.stmts.insert(lp->body.stmts.begin(),
                                temporary(tmp, pm, elem, off, lp->body.pos));
          return tmp + " created in the loop's block " + pm;
        });
      }
    }
  }
  if (options.empty()) return "";
  return pick(options, rng)();
}

/// The index of the first in-place update of `name` after statement `from` of `b`.
std::optional<size_t> later_update(const Body& b, size_t from, const std::string& name) {
  for (size_t k = from + 1; k < b.stmts.size(); ++k) {
    const auto* l = std::get_if<SLet>(&b.stmts[k].node);
    const auto* u = l ? std::get_if<EUpdate>(&l->exp.node) : nullptr;
    if (u && u->arr.s == name) return k;
  }
  return std::nullopt;
}

/// A temporary in the block of an array, right after its creation: over its cells, or a
/// size times 2^61 away (addresses that may wrap around 2^64). Or (`aimed`) a size times
/// 2^61 away right before a later in-place update of the array: between the creation of
/// the update's value and the update, where short-circuiting the value into the array
/// must account for the temporary's write (`bounds: address may wrap`).
std::string temporary_beside(Program& p, std::vector<Site>& sites, Rng& rng, bool aimed) {
  std::vector<std::pair<Site, Binding*>> arrays;
  for (const Site& s : sites)
    if (Binding* b = created(s); b && (!aimed || later_update(*s.body, s.idx, b->name.s)))
      arrays.emplace_back(s, b);
  if (arrays.empty()) return "";
  auto& [s, b] = pick(arrays, rng);
  const std::string tmp = fresh_name(bound_names(p.def), "tmp");
  auto n = aimed || rng() % 2 ? size_parameter(p, rng) : std::nullopt;
  if (aimed && !n) return "";
  const Poly off =
      n ? Poly::var(*n) * Poly(int64_t{1} << 61) : Poly(static_cast<int64_t>(rng() % 3));
  // (The insertion moves the statements: b is not read after it.)
  const std::string mem = b->type->ann->mem.s, name = b->name.s;
  // A third of them of another element type: a later read of the array may meet a cell
  // written as that type (an elemtype error of the heap semantics).
  const bool other = rng() % 3 == 0;
  const ScalarType elem = !other ? b->type->elem
                          : b->type->elem == ScalarType::F64 || b->type->elem == ScalarType::F32
                              ? ScalarType::I64
                              : ScalarType::F64;
  const size_t at = aimed ? *later_update(*s.body, s.idx, name) : s.idx + 1;
  const Pos pos = s.body->stmts[aimed ? at : s.idx].pos;
  s.body->stmts.insert(s.body->stmts.begin() + static_cast<long>(at),
                       temporary(tmp, mem, elem, off, pos));
  return tmp + std::string(other ? " (another element type)" : "") + " placed beside " + name +
         " in " + mem + " at " + off.to_string() +
         (aimed ? ", before its update at line " + std::to_string(pos.line) : "");
}

/// The array of 7s of read_in_destination_block: `[1]T @mem -> l = replicate 1 7`.
Stmt sevens_stmt(const std::string& name, const std::string& mem, ScalarType elem, const SymLmad& l,
                 Pos pos) {
  Lit seven;
  seven.type = elem;
  seven.i = 7;
  seven.f = 7;
  return array_let(name, elem, 1, mem, l, Exp{EReplicate{mk_int(1), AtomArg{seven, pos}}, pos},
                   pos);
}

/// The statement of `body` (before `end`) whose single binding is `name`, when `ok`.
std::optional<size_t> single_def(const Body& body, size_t end, const std::string& name,
                                 const std::function<bool(const Exp&)>& ok) {
  for (size_t k = 0; k < end; ++k) {
    const auto* l = std::get_if<SLet>(&body.stmts[k].node);
    if (l && l->pats.size() == 1 && l->pats[0].name.s == name && ok(l->exp)) return k;
  }
  return std::nullopt;
}

/// The update `D with [k, ...] = x` (x an array name) that site `s` of the function's
/// own body holds, if it is one.
EUpdate* top_row_update(const Site& s, const Body& top) {
  if (s.body != &top) return nullptr;
  auto* u = std::get_if<EUpdate>(&s.let().exp.node);
  if (!u || !std::holds_alternative<Name>(u->value.v) || u->entries.empty() ||
      !u->entries[0].is_index())
    return nullptr;
  return u;
}

/// Whether no statement of `body` from `from` to `to` (excluded) defines a name of `e`:
/// an `assume e` placed at `from` then means what it would at `to`.
bool names_fixed(const Body& body, size_t from, size_t to, const SExp& e) {
  std::set<std::string> needs;
  sexp_vars(e, needs);
  for (size_t k = from; k < to; ++k)
    if (const auto* l = std::get_if<SLet>(&body.stmts[k].node))
      for (const Binding& b : l->pats)
        if (needs.count(b.name.s)) return false;
  return true;
}

/// The update `D with [k] = x` of the top-level body, D made by a fresh creation in a
/// block allocated for it: the update's row becomes 0, D's allocation and creation move
/// down to right before the update (after x's creation; nothing between names D or its
/// block), and an array of 7s is created in D's block between them, on row 1, and read
/// into a new result of the function. Short-circuiting x into D hoists D's creation (with its
/// allocation and the 7s) above x's: the read must keep it from moving, or D's creation
/// overwrites the 7 before the read (class 7).
std::string read_in_destination_block(Program& p, std::vector<Site>& sites, Rng& rng) {
  Body& top = p.def.body;
  std::vector<std::function<std::string()>> options;
  for (const Site& s : sites) {
    EUpdate* u = top_row_update(s, top);
    if (!u) continue;
    const Name* x = &std::get<Name>(u->value.v);
    const int64_t row = 1; // the update's row becomes 0: the 7s go to row 1
    // (Only what a hoist moves: made from sizes and values, not from another array.)
    const auto kd = single_def(top, s.idx, u->arr.s, [](const Exp& e) {
      return std::holds_alternative<EReplicate>(e.node) || std::holds_alternative<EIota>(e.node) ||
             std::holds_alternative<EScratch>(e.node) || std::holds_alternative<EKernel>(e.node);
    });
    if (!kd) continue;
    const Binding d = std::get<SLet>(top.stmts[*kd].node).pats[0];
    if (!d.type || !d.type->ann || d.type->dims.size() < 2) continue;
    const std::string mem = d.type->ann->mem.s;
    const auto ka = single_def(top, *kd, mem,
                               [](const Exp& e) { return std::holds_alternative<EAlloc>(e.node); });
    bool movable = ka.has_value();
    std::optional<size_t> kx;
    for (size_t k = ka ? *ka + 1 : s.idx; k < s.idx; ++k) {
      if (k == *kd) continue;
      std::set<std::string> names, mems;
      stmt_mentions(top.stmts[k], names, mems);
      movable = movable && !names.count(d.name.s) && !mems.count(mem) && !names.count(mem);
      if (const auto* l = std::get_if<SLet>(&top.stmts[k].node))
        for (const Binding& b : l->pats)
          if (b.name.s == x->s) kx = k;
    }
    if (!movable || !kx) continue; // x must be made after D's block, or nothing moves
    // An assumption right before x's creation keeps the 7s inside D (D's first dimension
    // beyond the row, the others not empty): without it the read of the 7s may fail, and
    // nothing may move past it.
    SExpP fact = mk_bin(BinOp::Gt, d.type->dims[0], mk_int(row));
    for (size_t k = 1; k < d.type->dims.size(); ++k)
      fact = mk_bin(BinOp::And, fact, mk_bin(BinOp::Ge, d.type->dims[k], mk_int(1)));
    // ... and the 7s' cell inside the block, as a fact the linear prover can use.
    const auto& alloc = std::get<EAlloc>(std::get<SLet>(top.stmts[*ka].node).exp.node);
    const SymLmad dl = sym_lmad(d.type->ann->lmad);
    const Poly off = dl.offset + dl.dims.at(0).second * Poly(row);
    fact = mk_bin(BinOp::And, fact,
                  mk_bin(BinOp::Le, mk_bin(BinOp::Add, sexp(off), mk_int(1)), alloc.size));
    if (!names_fixed(top, *kx, s.idx, *fact)) continue;
    options.push_back([&p, &top, u, d, mem, fact, off, kx = *kx, a = *ka, c = *kd, at = s.idx] {
      u->entries[0].start = mk_int(0);
      SymLmad l;
      l.offset = off;
      l.dims.emplace_back(Poly(1), Poly(1));
      const std::set<std::string> used = bound_names(p.def);
      const std::string sevens = fresh_name(used, "sevens"), v = fresh_name(used, "seven");
      const Pos pos = top.stmts[c].pos;
      Type st;
      st.elem = d.type->elem;
      EIndex ix{Name{sevens, pos}, {}};
      ix.entries.push_back(Entry{mk_int(0), {}, {}});
      std::vector<Stmt> moved = {top.stmts[a], sevens_stmt(sevens, mem, d.type->elem, l, pos),
                                 scalar_let(v, d.type->elem, Exp{ix, pos}, pos), top.stmts[c]};
      std::vector<Stmt> out;
      for (size_t k = 0; k < top.stmts.size(); ++k) {
        if (k == kx) out.push_back(Stmt{SAssume{fact, "assume"}, top.stmts[k].pos});
        if (k == at) out.insert(out.end(), moved.begin(), moved.end());
        if (k != a && k != c) out.push_back(top.stmts[k]);
      }
      top.stmts = std::move(out);
      p.def.rets.push_back(st);
      top.results.push_back(Name{v, pos});
      return sevens + " (7s) created in " + mem + ", row 1 of " + d.name.s +
             ", read as a new result; " + d.name.s +
             "'s allocation and creation moved down to its update of row 0";
    });
  }
  if (options.empty()) return "";
  return pick(options, rng)();
}

/// The update `D with [k, ...] = x` of the top-level body (x created there before it)
/// takes its row from a read `fs[c]` made after an assumption: fs (two i64 zeros) shares
/// a block with an f64 written over its cell 1, and c = min(max(N - 1, 0), 1) for a size
/// parameter N, while the assumption `N < 2` comes right before the read. When N >= 2
/// the source ends with the assumption's error; the read would end with an elemtype
/// error, so it must not be lifted above the assumption to x's creation.
std::string read_other_elemtype_row(Program& p, std::vector<Site>& sites, Rng& rng) {
  Body& top = p.def.body;
  const auto n = size_parameter(p, rng);
  if (!n) return "";
  std::vector<std::function<std::string()>> options;
  for (const Site& s : sites) {
    EUpdate* u = top_row_update(s, top);
    if (!u) continue;
    const Name* x = &std::get<Name>(u->value.v);
    std::optional<size_t> kx;
    for (size_t k = 0; k < s.idx; ++k)
      if (const auto* l = std::get_if<SLet>(&top.stmts[k].node))
        for (const Binding& b : l->pats)
          if (b.name.s == x->s && b.type && b.type->kind == Type::Kind::Array) kx = k;
    if (!kx) continue;
    // D's rows not empty, assumed before x's creation (so that row 0 is inside D).
    const Type* dt = nullptr;
    for (const Binding& b : p.def.params)
      if (b.name.s == u->arr.s) dt = b.type ? &*b.type : nullptr;
    for (size_t k = 0; k < s.idx; ++k)
      if (const auto* l = std::get_if<SLet>(&top.stmts[k].node))
        for (const Binding& b : l->pats)
          if (b.name.s == u->arr.s) dt = b.type ? &*b.type : nullptr;
    if (!dt || dt->dims.empty()) continue;
    SExpP rows = mk_bin(BinOp::Ge, dt->dims[0], mk_int(1));
    if (!names_fixed(top, *kx, s.idx, *rows)) continue;
    options.push_back([&p, &top, u, rows, n = *n, kx = *kx, at = s.idx] {
      const std::set<std::string> used = bound_names(p.def);
      std::vector<std::string> names;
      for (const char* base : {"mix", "fs", "gs", "c", "p", "q"})
        names.push_back(fresh_name(used, std::string("elem_") + base));
      const std::string &mix = names[0], &fs = names[1], &gs = names[2];
      const Pos pos = top.stmts[kx].pos;
      SymLmad two, cell1;
      two.offset = Poly(0);
      two.dims.emplace_back(Poly(2), Poly(1));
      cell1.offset = Poly(1);
      cell1.dims.emplace_back(Poly(1), Poly(1));
      Lit zero, half;
      half.type = ScalarType::F64;
      half.f = 2.5;
      std::vector<Stmt> before = {
          Stmt{SAssume{rows, "assume"}, pos}, mem_let(mix, 2, pos),
          array_let(fs, ScalarType::I64, 2, mix, two, Exp{EReplicate{mk_int(2), {zero, pos}}, pos},
                    pos),
          array_let(gs, ScalarType::F64, 1, mix, cell1,
                    Exp{EReplicate{mk_int(1), {half, pos}}, pos}, pos),
          scalar_let(
              names[3], ScalarType::I64,
              Exp{EScalar{call2(Fn::Min,
                                call2(Fn::Max, mk_bin(BinOp::Sub, mk_var(n), mk_int(1)), mk_int(0)),
                                mk_int(1))},
                  pos},
              pos)};
      EIndex read{Name{fs, pos}, {}};
      read.entries.push_back(Entry{mk_var(names[3]), {}, {}});
      const Pos upos = top.stmts[at].pos;
      std::vector<Stmt> after = {
          Stmt{SAssume{mk_bin(BinOp::Lt, mk_var(n), mk_int(2)), "assume"}, upos},
          scalar_let(names[4], ScalarType::I64, Exp{read, upos}, upos),
          scalar_let(
              names[5], ScalarType::I64,
              Exp{EScalar{call2(Fn::Min, call2(Fn::Max, mk_var(names[4]), mk_int(0)), mk_int(0))},
                  upos},
              upos)};
      u->entries[0].start = mk_var(names[5]);
      top.stmts.insert(top.stmts.begin() + static_cast<long>(at), after.begin(), after.end());
      top.stmts.insert(top.stmts.begin() + static_cast<long>(kx), before.begin(), before.end());
      return "the row of the update at line " + std::to_string(upos.line) + " read from " + fs +
             ", whose cell 1 holds an f64, after the assumption " + n + " < 2";
    });
  }
  if (options.empty()) return "";
  return pick(options, rng)();
}

} // namespace

std::optional<Mutant> funmem_mutant(const std::string& fun_text, uint64_t seed) {
  ParseResult r = parse_program(fun_text, Lang::Fun);
  if (!r.program || !typecheck(*r.program).empty()) return std::nullopt;
  auto lowered = fun_to_funmem(*r.program);
  if (!lowered) return std::nullopt;
  lowered->expects.clear(); // a mutant is judged against its own heap semantics
  Rng rng(seed ^ 0x6d7574616e74ULL);
  for (int attempt = 0; attempt < 12; ++attempt) {
    Program m = *lowered;
    std::vector<Site> sites;
    std::vector<std::pair<Body*, size_t>> kernels;
    collect(m.def.body, kernels, sites);
    std::string what;
    try {
      switch (rng() % 9) {
      case 0:
        what = shrink_alloc(sites, rng);
        break;
      case 1:
        what = shift_layout(m, sites, rng);
        break;
      case 2:
        what = share_block(m, sites, rng);
        break;
      case 3:
        what = alloc_out_of_kernel(sites, rng);
        break;
      case 4:
        what = temporary_beside(m, sites, rng, false);
        break;
      case 5:
        what = temporary_beside(m, sites, rng, true);
        break;
      case 7:
        what = read_in_destination_block(m, sites, rng);
        break;
      case 8:
        what = read_other_elemtype_row(m, sites, rng);
        break;
      default:
        what = temporary_in_block(m, sites, rng);
        break;
      }
    } catch (const Untranslatable&) {
      continue;
    } catch (const SymbolicOverflow&) {
      continue;
    }
    if (what.empty()) continue;
    std::string text = print_program(m);
    ParseResult again = parse_program(text, Lang::FunMem);
    if (!again.program || !typecheck(*again.program).empty()) continue;
    return Mutant{"-- mutant: " + what + "\n" + text, what};
  }
  return std::nullopt;
}

} // namespace funmem
