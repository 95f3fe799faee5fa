// Allocation hoisting and memory expansion (see expand.h).
#include "analysis/expand.h"

#include "analysis/ast_util.h"
#include "analysis/point_facts.h"
#include "ir/convert.h"
#include "ir/overloaded.h"

#include <set>

namespace funmem {

namespace {

std::string at(Pos p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

const EAlloc* alloc_of(const Stmt& s) {
  const auto* l = std::get_if<SLet>(&s.node);
  return l ? std::get_if<EAlloc>(&l->exp.node) : nullptr;
}

std::string alloc_name(const Stmt& s) {
  return std::get<SLet>(s.node).pats.at(0).name.s;
}

/// Moves each allocation up to just after the last statement defining a name of its
/// size and the last allocation before it, but past a statement that may fail only when
/// the allocation cannot (with the facts where it lands): the run ends as before.
int hoist_body(Body& b, PointFacts facts) {
  int moved = 0;
  std::vector<PointFacts> at; // at[j]: the facts before statement j
  for (Stmt& s : b.stmts) {
    each_body_with(s, facts,
                   [&](Body& inner, const PointFacts& in) { moved += hoist_body(inner, in); });
    at.push_back(facts);
    facts.after(s);
  }
  for (size_t k = 0; k < b.stmts.size(); ++k) {
    const EAlloc* a = alloc_of(b.stmts[k]);
    if (!a) continue;
    std::set<std::string> need;
    sexp_vars(*a->size, need);
    size_t to = 0;
    for (size_t j = 0; j < k; ++j) {
      if (alloc_of(b.stmts[j])) to = j + 1; // allocations keep their order
      if (const auto* l = std::get_if<SLet>(&b.stmts[j].node))
        for (const Binding& p : l->pats)
          if (need.count(p.name.s)) to = j + 1;
    }
    const std::string z = alloc_name(b.stmts[k]);
    // Safe where it lands implies safe lower down (the facts only grow): once not shown
    // safe, it is not asked again above.
    bool safe = true;
    auto passes = [&](size_t j) { // the allocation may move above statement j
      std::set<std::string> names, mems;
      stmt_mentions(b.stmts[j], names, mems);
      if (names.count(z) || mems.count(z)) return false; // a name it shadows
      if (!at[j].may_fail(b.stmts[j])) return true;
      safe = safe && at[j].safe_size(*a->size);
      return safe;
    };
    size_t p = k;
    while (p > to && passes(p - 1))
      --p;
    if (p < k) {
      Stmt s = b.stmts[k];
      b.stmts.erase(b.stmts.begin() + static_cast<std::ptrdiff_t>(k));
      b.stmts.insert(b.stmts.begin() + static_cast<std::ptrdiff_t>(p), s);
      // The facts before the statements between p and k are unchanged (an allocation
      // binds a block, no fact), so `at` still describes them.
      at.insert(at.begin() + static_cast<std::ptrdiff_t>(p), at[p]);
      at.erase(at.begin() + static_cast<std::ptrdiff_t>(k + 1));
      ++moved;
    }
  }
  return moved;
}

struct Rewrite {
  std::string from, to;
  ExpandLayout layout;
  Poly iter, bound, size;

  LmadSyn apply(const LmadSyn& l) const {
    SymLmad s = sym_lmad(l);
    SymLmad r;
    if (layout == ExpandLayout::Cpu) {
      r = s;
      r.offset = s.offset + iter * size;
    } else {
      r.offset = s.offset * bound + iter;
      for (const auto& [c, st] : s.dims)
        r.dims.emplace_back(c, st * bound);
    }
    return explicit_syn(r);
  }

  void type(std::optional<Type>& t) const {
    if (!t || !t->ann || t->ann->mem.s != from) return;
    t->ann->lmad = apply(t->ann->lmad);
    t->ann->mem.s = to;
  }

  void body(Body& b) const {
    for (Stmt& s : b.stmts) {
      if (auto* l = std::get_if<SLet>(&s.node)) {
        for (Binding& p : l->pats)
          type(p.type);
        if (auto* lp = std::get_if<ELoop>(&l->exp.node))
          for (Binding& p : lp->params)
            type(p.type);
      }
      each_body(s, [&](Body& inner) { body(inner); });
    }
  }
};

class Expander {
public:
  Expander(ExpandLayout l, ExpandReport& r, std::set<std::string> used)
      : layout_(l), rep_(r), fresh(std::move(used)) {}

  void body(Body& b, PointFacts facts) {
    for (size_t k = 0; k < b.stmts.size(); ++k) {
      if (auto* x = kernel_of(b.stmts[k])) {
        PointFacts in = facts;
        in.enter_range(x->iter, x->bound);
        body(x->body, in);
        std::vector<Stmt> before = kernel(*x, b.stmts[k].pos, facts, in);
        b.stmts.insert(b.stmts.begin() + static_cast<std::ptrdiff_t>(k), before.begin(),
                       before.end());
        k += before.size();
      } else {
        each_body_with(b.stmts[k], facts,
                       [&](Body& inner, const PointFacts& in) { body(inner, in); });
      }
      facts.after(b.stmts[k]);
    }
  }

private:
  ExpandLayout layout_;
  ExpandReport& rep_;
  FreshNames fresh;

  static EKernel* kernel_of(Stmt& s) {
    auto* l = std::get_if<SLet>(&s.node);
    return l ? std::get_if<EKernel>(&l->exp.node) : nullptr;
  }

  /// Why allocation `a` (of block z) cannot leave kernel `k`, or "": its size and the
  /// expanded size must be computable before the kernel without failing (the run then
  /// ends as before: only a resource error can come earlier), and every array of the
  /// block must stay inside the thread's part of the expanded block.
  std::string refusal(const EKernel& k, const EAlloc& a, const std::string& z, PointFacts& outside,
                      const PointFacts& inside) {
    if (!outside.safe_size(*a.size))
      return "its size is not shown to be computable without an error and non-negative "
             "before the kernel";
    auto n = to_poly(*k.bound);
    auto s = to_poly(*a.size);
    if (!n || !s) return "its size or the kernel's bound is not an integer polynomial";
    if (!outside.proves(ge(*n, Poly(0)))) return "the kernel's bound is not shown non-negative";
    std::string why;
    EKernel copy = k;
    // A block this pass made holds only arrays it rewrote from ones shown inside their
    // thread's part, so they lie inside the whole block.
    if (!made_.count(z) && !arrays_inside_block(copy.body, z, *s, inside, why)) return why;
    // n * s <= 2^62 through bounds of each (linear questions in the facts' terms, where
    // the product itself is a hard nonlinear one), then as a whole.
    auto at_most = [&](const Poly& p, int bits) {
      return outside.proves(le(p, Poly(int64_t{1} << bits)));
    };
    for (int bits : {31, 22, 40})
      if (at_most(*n, bits) && at_most(*s, 62 - bits)) return "";
    if (!at_most(*n * *s, 62))
      return "the expanded size " + (*n * *s).to_string() + " is not shown to stay inside 2^62";
    return "";
  }

  /// Expands the allocations of one kernel body; returns the statements to put before it.
  std::vector<Stmt> kernel(EKernel& k, Pos pos, PointFacts& outside, const PointFacts& inside) {
    std::vector<Stmt> out;
    std::set<std::string> local = {k.iter.s}, flows;
    flowing_names(k.body, flows);
    std::vector<Stmt> kept;
    for (Stmt& s : k.body.stmts) {
      const EAlloc* a = alloc_of(s);
      if (!a) {
        if (const auto* l = std::get_if<SLet>(&s.node))
          for (const Binding& p : l->pats)
            local.insert(p.name.s);
        kept.push_back(s);
        continue;
      }
      std::string z = alloc_name(s);
      std::set<std::string> need;
      sexp_vars(*a->size, need);
      std::string why;
      if (need.count(k.iter.s))
        why = "its size depends on the thread index " + k.iter.s;
      else
        for (const auto& n : need)
          if (local.count(n)) why = "its size depends on '" + n + "', computed in the kernel body";
      if (why.empty() && flows.count(z)) why = "the block is returned as a value";
      try {
        if (why.empty()) why = refusal(k, *a, z, outside, inside);
      } catch (const SymbolicOverflow&) {
        why = "its expanded layout overflows 64 bits";
      }
      if (!why.empty()) {
        rep_.refused.push_back(at(s.pos) + ": " + z + ": " + why);
        local.insert(z);
        kept.push_back(s);
        continue;
      }
      std::string z2 = fresh(z + "_x");
      made_.insert(z2);
      // The bound first: where it fails, it fails as the kernel would.
      SExpP total = mk_bin(BinOp::Mul, k.bound, a->size, pos);
      out.push_back(Stmt{SLet{{Binding{Name{z2, pos}, mem_type()}}, Exp{EAlloc{total}, pos}}, pos});
      Rewrite rw{z, z2, layout_, Poly::var(k.iter.s), poly(*k.bound), poly(*a->size)};
      ++rep_.expanded;
      pending_.push_back(rw);
    }
    k.body.stmts = std::move(kept);
    for (const Rewrite& rw : pending_)
      rw.body(k.body);
    pending_.clear();
    return out;
  }

  std::vector<Rewrite> pending_;
  std::set<std::string> made_; // the blocks of expanded allocations
};

} // namespace

Program hoist_allocs(const Program& p, int* moved) {
  Program out = p;
  int n = hoist_body(out.def.body, PointFacts(out.def));
  if (moved) *moved = n;
  return out;
}

Program expand_memory(const Program& p, ExpandLayout layout, ExpandReport* report) {
  ExpandReport rep;
  // A block passed through a loop unchanged is visibly the same block (so a kernel's
  // block that a loop updates in place can be expanded).
  Program q = p;
  q.def = drop_invariant_mem_params(p.def);
  Program out = hoist_allocs(q, &rep.hoisted);
  Expander e(layout, rep, bound_names(out.def));
  e.body(out.def.body, PointFacts(out.def));
  if (report) *report = rep;
  return out;
}

} // namespace funmem
