// Allocation hoisting and memory expansion (see expand.h).
#include "analysis/expand.h"

#include "analysis/ast_util.h"
#include "ir/convert.h"
#include "ir/overloaded.h"

#include <set>

namespace funmem {

namespace {

const EAlloc* alloc_of(const Stmt& s) {
  const auto* l = std::get_if<SLet>(&s.node);
  return l ? std::get_if<EAlloc>(&l->exp.node) : nullptr;
}

std::string alloc_name(const Stmt& s) {
  return std::get<SLet>(s.node).pats.at(0).name.s;
}

int hoist_body(Body& b) {
  int moved = 0;
  for (Stmt& s : b.stmts)
    each_body(s, [&](Body& inner) { moved += hoist_body(inner); });
  for (size_t k = 0; k < b.stmts.size(); ++k) {
    const EAlloc* a = alloc_of(b.stmts[k]);
    if (!a) continue;
    std::set<std::string> need;
    sexp_vars(*a->size, need);
    size_t to = 0;
    for (size_t j = 0; j < k; ++j)
      if (const auto* l = std::get_if<SLet>(&b.stmts[j].node))
        for (const Binding& p : l->pats)
          if (need.count(p.name.s)) to = j + 1;
    // Allocations keep their order among themselves.
    while (to < k && alloc_of(b.stmts[to]))
      ++to;
    if (to < k) {
      Stmt s = b.stmts[k];
      b.stmts.erase(b.stmts.begin() + static_cast<std::ptrdiff_t>(k));
      b.stmts.insert(b.stmts.begin() + static_cast<std::ptrdiff_t>(to), s);
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

  void body(Body& b) {
    for (size_t k = 0; k < b.stmts.size(); ++k) {
      auto* l = std::get_if<SLet>(&b.stmts[k].node);
      if (!l) continue;
      std::visit(Overloaded{[&](EIf& x) {
                              body(x.then_body);
                              body(x.else_body);
                            },
                            [&](ELoop& x) { body(x.body); },
                            [&](EKernel& x) {
                              body(x.body);
                              hoist_body(x.body);
                              std::vector<Stmt> before = kernel(x, b.stmts[k].pos);
                              b.stmts.insert(b.stmts.begin() + static_cast<std::ptrdiff_t>(k),
                                             before.begin(), before.end());
                              k += before.size();
                            },
                            [](auto&) {}},
                 l->exp.node);
    }
  }

private:
  ExpandLayout layout_;
  ExpandReport& rep_;
  FreshNames fresh;

  /// Expands the allocations of one kernel body; returns the statements to put before it.
  std::vector<Stmt> kernel(EKernel& k, Pos pos) {
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
      if (!why.empty()) {
        rep_.refused.push_back(std::to_string(s.pos.line) + ":" + std::to_string(s.pos.col) + ": " +
                               z + ": " + why);
        local.insert(z);
        kept.push_back(s);
        continue;
      }
      std::string z2 = fresh(z + "_x");
      SExpP total = mk_bin(BinOp::Mul, a->size, k.bound, pos);
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
};

} // namespace

Program hoist_allocs(const Program& p, int* moved) {
  Program out = p;
  int n = hoist_body(out.def.body);
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
  e.body(out.def.body);
  if (report) *report = rep;
  return out;
}

} // namespace funmem
