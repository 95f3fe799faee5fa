// Memory block merging (see merge.h).
#include "analysis/merge.h"

#include "analysis/ast_util.h"
#include "analysis/point_facts.h"

#include "ir/convert.h"
#include "ir/overloaded.h"

#include <algorithm>
#include <map>
#include <set>

namespace funmem {

namespace {

void rename_mems_body(Body& b, const std::map<std::string, std::string>& to);

void rename_type(std::optional<Type>& t, const std::map<std::string, std::string>& to) {
  if (!t || !t->ann) return;
  auto it = to.find(t->ann->mem.s);
  if (it != to.end()) t->ann->mem.s = it->second;
}

void rename_mems_body(Body& b, const std::map<std::string, std::string>& to) {
  for (Stmt& s : b.stmts) {
    auto* l = std::get_if<SLet>(&s.node);
    if (!l) continue;
    for (Binding& p : l->pats)
      rename_type(p.type, to);
    std::visit(Overloaded{[&](EIf& x) {
                            rename_mems_body(x.then_body, to);
                            rename_mems_body(x.else_body, to);
                          },
                          [&](EKernel& x) { rename_mems_body(x.body, to); },
                          [&](ELoop& x) {
                            for (Binding& p : x.params)
                              rename_type(p.type, to);
                            rename_mems_body(x.body, to);
                          },
                          [](auto&) {}},
               l->exp.node);
  }
}

class Merger {
public:
  Merger(MergeReport& r, const MergeOptions& opt) : rep_(r), opt_(opt) {}

  void body(Body& b, const std::set<std::string>& escaping, std::set<std::string> defined,
            PointFacts facts) {
    const std::set<std::string> outer = defined;
    std::vector<PointFacts> at; // at[k]: the facts before statement k
    // Nested bodies first.
    for (Stmt& s : b.stmts) {
      at.push_back(facts);
      if (auto* l = std::get_if<SLet>(&s.node)) {
        std::visit(Overloaded{[&](EIf& x) {
                                body(x.then_body, escaping, defined, facts);
                                body(x.else_body, escaping, defined, facts);
                              },
                              [&](EKernel& x) {
                                auto d = defined;
                                d.insert(x.iter.s);
                                PointFacts in = facts;
                                in.enter_range(x.iter, x.bound);
                                body(x.body, escaping, d, in);
                              },
                              [&](ELoop& x) {
                                auto d = defined;
                                d.insert(x.iter.s);
                                PointFacts in = facts;
                                for (auto& p : x.params) {
                                  d.insert(p.name.s);
                                  in.bind(p);
                                }
                                in.enter_range(x.iter, x.bound);
                                body(x.body, escaping, d, in);
                              },
                              [](auto&) {}},
                   l->exp.node);
        for (auto& p : l->pats)
          defined.insert(p.name.s);
      }
      facts.after(s);
    }
    merge_here(b, escaping, outer, at);
  }

private:
  MergeReport& rep_;
  const MergeOptions& opt_;

  struct Cand {
    std::string name;
    size_t alloc_at = 0;
    SExpP size;
    size_t first = SIZE_MAX, last = 0;
    std::set<ScalarType> elems;
    bool scratch = false; // holds a `scratch`, whose zeros a reused block would not have
    bool inside = false;  // every array placed in it is shown inside its size
  };

  /// The element types of the arrays placed in each candidate block, and the block's live
  /// range: the first and last statement mentioning it or an array in it (the body's
  /// results count as a use at its end).
  static void live_ranges(const Body& b, std::map<std::string, Cand>& cands) {
    std::map<std::string, std::string> array_mem;
    auto note_types = [&](const std::vector<Binding>& pats) {
      for (const Binding& p : pats)
        if (p.type && p.type->ann && cands.count(p.type->ann->mem.s)) {
          array_mem[p.name.s] = p.type->ann->mem.s;
          cands[p.type->ann->mem.s].elems.insert(p.type->elem);
        }
    };
    for (const Stmt& s : b.stmts)
      if (const auto* l = std::get_if<SLet>(&s.node)) {
        note_types(l->pats);
        if (const auto* lp = std::get_if<ELoop>(&l->exp.node)) note_types(lp->params);
      }
    mark_scratch(b, cands);
    // Live ranges: first and last statement mentioning the block or an array in it.
    auto mention = [&](const std::string& mem, size_t k) {
      Cand& c = cands[mem];
      c.first = std::min(c.first, k);
      c.last = std::max(c.last, k);
    };
    for (size_t k = 0; k < b.stmts.size(); ++k) {
      std::set<std::string> names, mems;
      stmt_mentions(b.stmts[k], names, mems);
      for (auto& m : mems)
        if (cands.count(m)) mention(m, k);
      for (auto& n : names) {
        if (cands.count(n) && k != cands[n].alloc_at) mention(n, k);
        if (auto it = array_mem.find(n); it != array_mem.end()) mention(it->second, k);
      }
    }
    for (const Name& r : b.results)
      if (auto it = array_mem.find(r.s); it != array_mem.end()) mention(it->second, b.stmts.size());
  }

  /// Candidates holding a `scratch` anywhere in the body, nested bodies included.
  static void mark_scratch(const Body& b, std::map<std::string, Cand>& cands) {
    for (const Stmt& s : b.stmts) {
      const auto* l = std::get_if<SLet>(&s.node);
      if (!l) continue;
      if (std::holds_alternative<EScratch>(l->exp.node))
        for (const Binding& p : l->pats)
          if (p.type && p.type->ann && cands.count(p.type->ann->mem.s))
            cands[p.type->ann->mem.s].scratch = true;
      std::visit(Overloaded{[&](const EIf& x) {
                              mark_scratch(x.then_body, cands);
                              mark_scratch(x.else_body, cands);
                            },
                            [&](const EKernel& x) { mark_scratch(x.body, cands); },
                            [&](const ELoop& x) { mark_scratch(x.body, cands); },
                            [](const auto&) {}},
                 l->exp.node);
    }
  }

  void merge_here(Body& b, const std::set<std::string>& escaping,
                  const std::set<std::string>& outer, std::vector<PointFacts>& at) {
    std::map<std::string, Cand> cands;
    std::vector<std::string> order;
    for (size_t k = 0; k < b.stmts.size(); ++k) {
      const auto* l = std::get_if<SLet>(&b.stmts[k].node);
      if (!l) continue;
      const auto* a = std::get_if<EAlloc>(&l->exp.node);
      if (!a || l->pats.size() != 1 || escaping.count(l->pats[0].name.s)) continue;
      Cand c;
      c.name = l->pats[0].name.s;
      c.alloc_at = k;
      c.size = a->size;
      cands[c.name] = c;
      order.push_back(c.name);
    }
    if (order.size() < 2) return;
    live_ranges(b, cands);
    // A block joins another (taking the larger size) only when every array placed in it
    // is shown inside its own size: a write beyond it ends the source's run, and the
    // larger block would hide it.
    for (auto& [name, c] : cands) {
      std::string why;
      std::optional<Poly> size;
      try {
        size = to_poly(*c.size);
      } catch (const SymbolicOverflow&) {
      }
      c.inside = size && !at.empty() && arrays_inside_block(b, name, *size, at[0], why);
    }
    // Names defined before each statement (for the merged allocation's size).
    auto defined_before = [&](size_t k) {
      std::set<std::string> d;
      for (size_t j = 0; j < k; ++j)
        if (const auto* l = std::get_if<SLet>(&b.stmts[j].node))
          for (auto& p : l->pats)
            d.insert(p.name.s);
      return d;
    };
    auto interferes = [&](const Cand& a, const Cand& c) {
      if (a.first == SIZE_MAX || c.first == SIZE_MAX) return false; // unused blocks
      if (a.elems.size() > 1 || c.elems.size() > 1 || a.elems != c.elems) return true;
      if (opt_.broken_no_interference) return false; // deliberately broken
      return !(a.last < c.first || c.last < a.first);
    };
    std::vector<std::vector<std::string>> colours;
    for (const std::string& n : order) {
      const Cand& c = cands[n];
      // Unused blocks are left alone, and so are blocks holding a scratch: its zeros are
      // a fresh block's, whichever member came first.
      if (c.first == SIZE_MAX || c.elems.empty() || c.scratch || !c.inside) continue;
      bool placed = false;
      for (auto& col : colours) {
        bool ok = true;
        for (auto& m : col)
          ok = ok && !interferes(cands[m], c);
        // The merged allocation sits at the first member's alloc: this member's size
        // must be computable there, and neither size may fail (an error, or a negative
        // size that max would hide), so the run ends as before.
        const Cand& head = cands[col[0]];
        std::set<std::string> need, before = defined_before(head.alloc_at);
        sexp_vars(*c.size, need);
        for (auto& v : need)
          ok = ok && (before.count(v) || outer.count(v));
        ok = ok && at[head.alloc_at].safe_size(*head.size) && at[head.alloc_at].safe_size(*c.size);
        if (ok) {
          col.push_back(n);
          placed = true;
          break;
        }
      }
      if (!placed) colours.push_back({n});
    }
    std::map<std::string, std::string> rename;
    std::set<size_t> drop;
    for (auto& col : colours) {
      if (col.size() < 2) continue;
      Cand& head = cands[col[0]];
      SExpP size = head.size;
      std::vector<std::optional<Poly>> seen = {to_poly(*head.size)};
      for (size_t k = 1; k < col.size(); ++k) {
        const SExpP& other = cands[col[k]].size;
        auto op = to_poly(*other);
        bool dup = false;
        for (auto& s : seen)
          dup = dup || (s && op && *s == *op);
        if (!dup) {
          SCall mx;
          mx.fn = Fn::Max;
          mx.args = {size, other};
          size = SExpP(SExp{mx, head.size->pos});
          seen.push_back(op);
        }
        rename[col[k]] = col[0];
        drop.insert(cands[col[k]].alloc_at);
        ++rep_.merged;
      }
      auto& l = std::get<SLet>(b.stmts[head.alloc_at].node);
      std::get<EAlloc>(l.exp.node).size = size;
    }
    if (rename.empty()) return;
    rename_mems_body(b, rename);
    std::vector<Stmt> kept;
    for (size_t k = 0; k < b.stmts.size(); ++k)
      if (!drop.count(k)) kept.push_back(b.stmts[k]);
    b.stmts = std::move(kept);
  }
};

int count_allocs(const Body& b) {
  int n = 0;
  for (const Stmt& s : b.stmts)
    if (const auto* l = std::get_if<SLet>(&s.node)) {
      if (std::holds_alternative<EAlloc>(l->exp.node)) ++n;
      std::visit(Overloaded{[&](const EIf& x) {
                              n += count_allocs(x.then_body) + count_allocs(x.else_body);
                            },
                            [&](const EKernel& x) { n += count_allocs(x.body); },
                            [&](const ELoop& x) { n += count_allocs(x.body); }, [](const auto&) {}},
                 l->exp.node);
    }
  return n;
}

} // namespace

Program merge_blocks(const Program& p, MergeReport* report, const MergeOptions& opt) {
  MergeReport rep;
  Program out = p;
  std::set<std::string> escaping;
  flowing_names(out.def.body, escaping);
  rep.blocks_before = count_allocs(out.def.body);
  Merger m(rep, opt);
  std::set<std::string> params;
  for (const Binding& b : p.def.params)
    params.insert(b.name.s);
  m.body(out.def.body, escaping, params, PointFacts(out.def));
  rep.blocks_after = count_allocs(out.def.body);
  if (report) *report = rep;
  return out;
}

} // namespace funmem
