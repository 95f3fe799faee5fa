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

/// `let (tmp : [2]T @m -> off + {(2 : 1)}) = replicate 2 0`.
Stmt temporary(const std::string& name, const std::string& mem, ScalarType elem, const Poly& off,
               Pos pos) {
  Binding b;
  b.name = Name{name, pos};
  Type t;
  t.kind = Type::Kind::Array;
  t.elem = elem;
  t.dims.push_back(mk_int(2));
  SymLmad l;
  l.offset = off;
  l.dims.emplace_back(Poly(2), Poly(1));
  t.ann = MemAnn{Name{mem, pos}, explicit_syn(l)};
  b.type = t;
  Lit zero;
  zero.type = elem;
  SLet let;
  let.pats.push_back(b);
  let.exp.node = EReplicate{mk_int(2), AtomArg{zero, pos}};
  return Stmt{let, pos};
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
      switch (rng() % 7) {
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
