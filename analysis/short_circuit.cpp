// Array short-circuiting (see short_circuit.h).
#include "analysis/short_circuit.h"


#include "analysis/ast_util.h"
#include "analysis/solver.h"
#include "analysis/syntax_util.h"
#include "ir/overloaded.h"
#include "ir/printer.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

namespace funmem {

const char* sc_kind_name(ScKind k) {
  switch (k) {
  case ScKind::Update:
    return "update";
  case ScKind::Concat:
    return "concat operand";
  case ScKind::KernelResult:
    return "kernel result";
  case ScKind::Copy:
    return "copy";
  case ScKind::ScalarMap:
    return "in-place scalar map";
  }
  return "?";
}

int ScReport::proved_points() const {
  int n = 0;
  for (const ScAttempt& a : attempts)
    n += a.proved && a.kind != ScKind::ScalarMap;
  return n;
}

int ScReport::scalar_maps() const {
  int n = 0;
  for (const ScAttempt& a : attempts)
    n += a.proved && a.kind == ScKind::ScalarMap;
  return n;
}

int ScReport::refused() const {
  int n = 0;
  for (const ScAttempt& a : attempts)
    n += !a.proved;
  return n;
}

namespace {

std::string at(Pos p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

/// Adds a solver's counts to an attempt when it goes out of scope (also on refusal).
struct Account {
  Account(const Solver& s, ScAttempt& at)
      : solver(s), a(at), queries0(s.stats().queries), z3_0(s.stats().z3_calls) {}
  Account(const Account&) = delete;
  Account& operator=(const Account&) = delete;
  ~Account() {
    a.queries += solver.stats().queries - queries0;
    a.z3_calls += solver.stats().z3_calls - z3_0;
  }
  const Solver& solver;
  ScAttempt& a;
  int queries0, z3_0;
};

/// Thrown when a kernel's array is not a candidate for an in-place scalar map (6.9's
/// conditions 1-6); such candidates are not attempts and are not reported.
struct NotCandidate {
  std::string why;
};

/// Thrown inside an attempt: the safety property that failed and why.
struct Refused {
  std::string property, reason;
};

struct Frame {
  enum class Kind { Top, Kernel, Loop, Branch };
  Body* body = nullptr;
  size_t idx = 0; // the statement of `body` holding the next frame, or the point
  Kind kind = Kind::Top;
  std::string iter;
  SExpP bound;
};

/// An access: a set of points of a memory block, with what made it.
struct Acc {
  SymLmad l;
  std::string what;
};

/// An access summary (U_ys or W_x); `undet` says why it cannot be summarised.
struct Summary {
  std::vector<Acc> accs;
  std::optional<std::string> undet;
  void add(const Summary& o) {
    accs.insert(accs.end(), o.accs.begin(), o.accs.end());
    if (!undet && o.undet) undet = o.undet;
  }
};

/// Bindings, definition sites and may-alias classes of memory names of one definition.
struct Index {
  std::unordered_map<std::string, Binding*> binding;
  std::unordered_map<std::string, std::pair<Body*, size_t>> site; // statement lets only
  std::unordered_map<std::string, std::string> parent;
  /// Where a block held by a name flows within one iteration (loop initial values into
  /// parameters, body and branch results into result patterns); the back edge from a
  /// loop body's result to its parameter (the next iteration) is only in `parent`.
  std::unordered_map<std::string, std::vector<std::string>> flows;

  std::string find(const std::string& n) {
    auto it = parent.find(n);
    if (it == parent.end() || it->second == n) return n;
    std::string r = find(it->second);
    parent[n] = r;
    return r;
  }
  void unite(const std::string& a, const std::string& b) {
    std::string ra = find(a), rb = find(b);
    if (ra != rb) parent[ra] = rb;
  }

  void body(Body& b) {
    for (size_t k = 0; k < b.stmts.size(); ++k) {
      auto* l = std::get_if<SLet>(&b.stmts[k].node);
      if (!l) continue;
      for (Binding& p : l->pats) {
        binding[p.name.s] = &p;
        site[p.name.s] = {&b, k};
      }
      // A loop's memory parameters may be its initial blocks, its body's result blocks
      // and its result blocks; an if's results may be either branch's.
      if (auto* lp = std::get_if<ELoop>(&l->exp.node)) {
        for (size_t j = 0; j < lp->params.size(); ++j) {
          const std::string& pn = lp->params[j].name.s;
          binding[pn] = &lp->params[j];
          if (j < lp->inits.size()) unite(pn, lp->inits[j].s);
          if (j < lp->body.results.size()) unite(pn, lp->body.results[j].s);
          if (j < l->pats.size()) unite(pn, l->pats[j].name.s);
          if (j < lp->inits.size()) flows[lp->inits[j].s].push_back(pn);
          if (j < l->pats.size()) {
            flows[pn].push_back(l->pats[j].name.s);
            if (j < lp->body.results.size())
              flows[lp->body.results[j].s].push_back(l->pats[j].name.s);
          }
        }
      } else if (auto* x = std::get_if<EIf>(&l->exp.node)) {
        for (size_t j = 0; j < l->pats.size(); ++j) {
          for (const Body* br : {&x->then_body, &x->else_body})
            if (j < br->results.size()) {
              unite(l->pats[j].name.s, br->results[j].s);
              flows[br->results[j].s].push_back(l->pats[j].name.s);
            }
        }
      }
      each_body(b.stmts[k], [&](Body& in) { body(in); });
    }
  }
};

struct ArrT {
  std::string mem;
  SymLmad lay;
  std::vector<Poly> dims;
  ScalarType elem = ScalarType::I64;
};

std::vector<Formula> stmt_facts(const Stmt& s) {
  std::vector<Formula> out;
  std::string err;
  if (const auto* a = std::get_if<SAssume>(&s.node)) {
    if (auto f = formula_of(*a->cond, &err)) out.push_back(*f);
    return out;
  }
  const SLet& l = std::get<SLet>(s.node);
  if (l.pats.size() != 1) return out;
  if (const auto* e = std::get_if<EScalar>(&l.exp.node)) {
    SExpP def = mk_bin(BinOp::Eq, mk_var(l.pats[0].name.s), e->e);
    if (auto f = formula_of(*def, &err)) out.push_back(*f);
  }
  return out;
}

void range_facts(const std::string& iter, const SExpP& bound, std::vector<Formula>& out) {
  if (!bound) return;
  auto b = to_poly(*bound);
  if (!b) return;
  out.push_back(ge(Poly::var(iter), Poly(0)));
  out.push_back(lt(Poly::var(iter), *b));
}

/// Integer `let` definitions of a body that are polynomials, with earlier ones inlined.
void poly_defs(const Body& b, size_t upto, std::map<std::string, Poly>& defs) {
  for (size_t k = 0; k < upto && k < b.stmts.size(); ++k)
    if (const auto* l = std::get_if<SLet>(&b.stmts[k].node))
      if (l->pats.size() == 1)
        if (const auto* e = std::get_if<EScalar>(&l->exp.node))
          if (auto p = to_poly(*e->e)) defs[l->pats[0].name.s] = p->substitute(defs);
}

bool mentions(const SymLmad& l, const std::string& v) {
  auto fv = lmad_free_vars(l);
  return std::find(fv.begin(), fv.end(), v) != fv.end();
}

/// The attempt at one point.
struct Point {
  ScKind kind = ScKind::Update;
  Pos pos;
  Body* B = nullptr;
  size_t P = 0; // index of the point's statement; B->stmts.size() for a kernel result
  std::string x, dest, ysm;
  SymLmad lnew;
  std::vector<Frame> frames; // frames.back().body == B
  // bounds of an update: the destination's shape and the entries or the LMAD slice
  std::vector<Poly> dest_dims;
  std::optional<std::vector<SymEntry>> entries;
  std::optional<SymLmad> inner;
  const std::vector<Entry>* syn_entries = nullptr; // the update's entries as written
  std::vector<SExpP> dest_dims_syn;                // the destination's shape as written
  std::string other;                               // concat: the other operand
  /// The result of one branch of an `if` whose result is the source (B is the branch,
  /// P its end): the position of the result among the branch's results.
  std::optional<size_t> branch_result;
  /// Arrays that will live in the destination too, with their places: the other
  /// branch's result when it was created before the if (its uses count as uses of the
  /// destination).
  std::map<std::string, SymLmad> also;
};

/// One entry of an update's place inside a dimension of `dim` elements: an index in
/// [0, dim); a slice empty, or its first and last element in [0, dim).
Formula entry_inside(const SymEntry& e, const Poly& dim) {
  auto in = [&](const Poly& i) { return Formula::conj({ge(i, Poly(0)), lt(i, dim)}); };
  if (!e.count) return in(e.start);
  Poly last = e.start + (*e.count - Poly(1)) * e.stride;
  return Formula::disj({le(*e.count, Poly(0)), Formula::conj({in(e.start), in(last)})});
}

/// Statements that create an array in a block of their own, from sizes and values.
bool fresh_creation(const Exp& x) {
  return std::holds_alternative<EReplicate>(x.node) || std::holds_alternative<EIota>(x.node) ||
         std::holds_alternative<EScratch>(x.node) || std::holds_alternative<EKernel>(x.node);
}

class Pass {
public:
  Pass(Program& p, ScReport& rep, const ScOptions& opt) : p_(p), rep_(rep), opt_(opt) {}

  void run() {
    for (;;) {
      ix_ = Index{};
      for (Binding& b : p_.def.params)
        ix_.binding[b.name.s] = &b;
      ix_.body(p_.def.body);
      names_.reset();
      std::vector<Frame> fr{Frame{&p_.def.body, 0, Frame::Kind::Top, "", {}}};
      if (!sweep(p_.def.body, fr)) break;
    }
  }

private:
  Program& p_;
  ScReport& rep_;
  const ScOptions& opt_;
  Index ix_;
  std::map<std::string, std::optional<ArrT>> arr_cache_;
  std::set<std::string> decided_;
  std::optional<std::set<std::string>> names_; // the bound names, when asked for
  const std::set<std::string>& names() {
    if (!names_) names_ = bound_names(p_.def);
    return *names_;
  }
  std::map<std::string, std::unique_ptr<Solver>> solvers_;
  /// The integer `let` definitions in scope at the current attempt, inlined into the
  /// prover's questions (Z3 answers the side conditions faster without them).
  std::map<std::string, Poly> defs_;

  /// A loop that carries the source in place (6.6.1): `loop (pm : mem) (p : ...) =
  /// (xm, x0) ... in (pm, q)`; its parameter and body result join the source's aliases
  /// and keep the block name pm (which then holds the destination's block).
  struct Carried {
    const ELoop* loop = nullptr;
    size_t d = 0;                               // statement of the point's body
    size_t j = 0;                               // the array's position among the loop's parameters
    std::vector<std::pair<size_t, Acc>> writes; // updates of aliases in the body
  };
  std::vector<Carried> carried_;
  std::map<std::string, std::string> fam_mem_; // aliases that keep their block name
  std::optional<size_t> last_creation_;        // the source's creation, once found
  std::map<std::string, ArrT> also_; // arrays that will share the destination (Point::also)

  void set_defs(const std::vector<Frame>& frames, size_t point) {
    defs_.clear();
    for (size_t f = 0; f < frames.size(); ++f)
      poly_defs(*frames[f].body, f + 1 == frames.size() ? point : frames[f].idx, defs_);
  }

  /// One solver per set of facts, shared by the attempts (its cache too): the attempts
  /// of a chain ask many of the same side conditions.
  Solver& solver_for(std::vector<Formula> facts) {
    std::map<std::string, Formula> uniq;
    for (Formula& f : facts)
      uniq.emplace(f.to_string(), std::move(f));
    std::string key;
    std::vector<Formula> sorted;
    for (auto& [k, f] : uniq) {
      key += k + ";";
      sorted.push_back(std::move(f));
    }
    auto& slot = solvers_[key];
    if (!slot) slot = std::make_unique<Solver>(std::move(sorted), opt_.prover.timeout_ms);
    return *slot;
  }

  // ------------------------------------------------------------ lookups

  /// The array type of a name (memory, layout, shape); nullopt for non-arrays. Kept
  /// across sweeps: a proved point rewrites the types of its family, which it erases
  /// (names are unique, and moving a statement changes no type); an in-place scalar map
  /// renames a block in many types and clears it.
  const std::optional<ArrT>& arr(const std::string& n) {
    auto [slot, fresh] = arr_cache_.try_emplace(n);
    if (fresh) slot->second = arr_of(n);
    return slot->second;
  }
  std::optional<ArrT> arr_of(const std::string& n) const {
    auto it = ix_.binding.find(n);
    if (it == ix_.binding.end() || !it->second->type) return std::nullopt;
    const Type& t = *it->second->type;
    if (t.kind != Type::Kind::Array || !t.ann) return std::nullopt;
    ArrT a;
    a.mem = t.ann->mem.s;
    a.lay = sym_lmad(t.ann->lmad);
    a.dims = polys(t.dims);
    a.elem = t.elem;
    return a;
  }

  bool same_block(const std::string& a, const std::string& b) { return ix_.find(a) == ix_.find(b); }

  /// The body whose `alloc` statement binds the memory `mem`; null when `mem` is not
  /// bound by an alloc (a parameter, an if's or a loop's result).
  const Body* alloc_body(const std::string& mem) const {
    auto site = ix_.site.find(mem);
    if (site == ix_.site.end()) return nullptr;
    const auto* l = std::get_if<SLet>(&site->second.first->stmts[site->second.second].node);
    return l && std::holds_alternative<EAlloc>(l->exp.node) ? site->second.first : nullptr;
  }

  /// The names that may hold the block of `m` while an attempt's statements run. A block
  /// made by `alloc` is new: only names it flows into can hold it (not the parameters of
  /// an enclosing loop, which hold the previous iteration's block). Any other block (a
  /// parameter's) may be held by every name of its may-alias class.
  std::set<std::string> block_names(const std::string& m) {
    std::set<std::string> out{m};
    if (alloc_body(m)) { // a fresh block
      std::vector<std::string> todo{m};
      while (!todo.empty()) {
        std::string n = todo.back();
        todo.pop_back();
        auto it = ix_.flows.find(n);
        if (it == ix_.flows.end()) continue;
        for (const std::string& t : it->second)
          if (out.insert(t).second) todo.push_back(t);
      }
      return out;
    }
    std::set<std::string> all;
    for (const auto& [n, _] : ix_.binding)
      all.insert(n);
    for (const auto& [n, _] : ix_.parent)
      all.insert(n);
    for (const std::string& n : all)
      if (same_block(n, m)) out.insert(n);
    return out;
  }

  std::string creation_text(const SLet& l, Pos pos) {
    std::string k = std::visit(
        Overloaded{[](const EKernel&) { return "kernel"; }, [](const EIota&) { return "iota"; },
                   [](const EReplicate&) { return "replicate"; },
                   [](const ECopy&) { return "copy"; }, [](const EScratch&) { return "scratch"; },
                   [](const EConcat&) { return "concat"; }, [](const EIf&) { return "if"; },
                   [](const auto&) { return "statement"; }},
        l.exp.node);
    return k + " at " + at(pos);
  }

  // ------------------------------------------------------------ facts

  std::vector<Formula> facts_at(const std::vector<Frame>& fr, size_t point) {
    std::vector<Formula> out;
    for (const Binding& b : p_.def.params)
      if (b.type && b.type->kind == Type::Kind::Array)
        for (const SExpP& d : b.type->dims)
          if (auto pd = to_poly(*d)) out.push_back(ge(*pd, Poly(0)));
    for (size_t f = 0; f < fr.size(); ++f) {
      if (fr[f].kind == Frame::Kind::Kernel || fr[f].kind == Frame::Kind::Loop)
        range_facts(fr[f].iter, fr[f].bound, out);
      size_t upto = f + 1 == fr.size() ? point : fr[f].idx;
      for (size_t k = 0; k < upto && k < fr[f].body->stmts.size(); ++k)
        for (Formula& g : stmt_facts(fr[f].body->stmts[k]))
          out.push_back(std::move(g));
    }
    return out;
  }

  // ------------------------------------------------------------ access summaries

  /// U: the uses of blocks that may be the destination's (`dest`), by arrays other
  /// than the members of `fam`, in one statement; nested bodies aggregated with EXPAND.
  void uses(const Stmt& s, const std::set<std::string>& dest,
            const std::map<std::string, SymLmad>& fam, Summary& U) {
    const auto* l = std::get_if<SLet>(&s.node);
    if (!l) return;
    Pos pos = s.pos;
    auto place = [&](const std::string& a) -> const ArrT* {
      if (auto it = also_.find(a); it != also_.end()) return &it->second;
      if (fam.count(a)) return nullptr;
      const auto& t = arr(a);
      if (!t || !dest.count(t->mem)) return nullptr;
      return &*t;
    };
    auto read = [&](const std::string& a) {
      if (auto t = place(a)) U.accs.push_back({t->lay, "read of " + a + " at " + at(pos)});
    };
    auto write_pat = [&](const char* what) {
      for (const Binding& b : l->pats)
        if (auto t = place(b.name.s))
          U.accs.push_back({t->lay, std::string(what) + " writing " + b.name.s + " at " + at(pos)});
    };
    auto atom = [&](const AtomArg& a) {
      if (const auto* n = std::get_if<Name>(&a.v)) read(n->s);
    };
    auto aggregate = [&](Summary in, const Body& body, const std::string& iter, const SExpP& bound,
                         Pos where) {
      localize(in, body);
      if (in.undet && !U.undet) U.undet = in.undet;
      auto b = bound ? to_poly(*bound) : std::nullopt;
      for (const Acc& a : in.accs) {
        if (!mentions(a.l, iter)) {
          U.accs.push_back(a);
          continue;
        }
        std::optional<SymLmad> e = b ? lmad_expand(iter, Poly(0), *b, a.l) : std::nullopt;
        if (!e) {
          if (!U.undet)
            U.undet = a.what + " is not affine in " + iter + " (the loop at " + at(where) + ")";
          continue;
        }
        U.accs.push_back({*e, a.what + " over all " + iter});
      }
    };
    std::visit(
        Overloaded{
            [&](const EIndex& x) {
              auto t = place(x.arr.s);
              if (!t || x.entries.size() != t->dims.size()) return;
              for (const Entry& e : x.entries)
                if (!e.is_index()) return;
              U.accs.push_back({lmad_index(t->lay, sym_entries(x.entries)),
                                "read of " + x.arr.s + " at " + at(pos)});
            },
            [&](const ECopy& x) {
              read(x.arr.s);
              write_pat("copy");
            },
            [&](const EConcat& x) {
              read(x.a.s);
              read(x.b.s);
              write_pat("concat");
            },
            [&](const EIota&) { write_pat("iota"); },
            [&](const EReplicate& x) {
              atom(x.value);
              write_pat("replicate");
            },
            [&](const EUpdate& x) {
              atom(x.value);
              if (auto t = place(x.arr.s))
                U.accs.push_back({lmad_index(t->lay, sym_entries(x.entries)),
                                  "update of " + x.arr.s + " at " + at(pos)});
            },
            [&](const EUpdateLmad& x) {
              read(x.value.s);
              if (auto t = place(x.arr.s))
                U.accs.push_back({lmad_compose(t->lay, sym_lmad(x.lmad)),
                                  "update of " + x.arr.s + " at " + at(pos)});
            },
            [&](const EKernel& x) {
              Summary in;
              for (const Stmt& st : x.body.stmts)
                uses(st, dest, fam, in);
              for (const Name& r : x.body.results)
                if (auto t = place(r.s))
                  in.accs.push_back({t->lay, "read of " + r.s + " (kernel result) at " + at(pos)});
              aggregate(in, x.body, x.iter.s, x.bound, pos);
              write_pat("kernel");
            },
            [&](const ELoop& x) {
              Summary in;
              for (const Stmt& st : x.body.stmts)
                uses(st, dest, fam, in);
              aggregate(in, x.body, x.iter.s, x.bound, pos);
            },
            [&](const EIf& x) {
              for (const Stmt& st : x.then_body.stmts)
                uses(st, dest, fam, U);
              for (const Stmt& st : x.else_body.stmts)
                uses(st, dest, fam, U);
            },
            [](const auto&) {}},
        l->exp.node);
  }

  /// Uses inside a body of a kernel or loop, seen from outside it: names the body
  /// computes differ between iterations, so integer definitions are substituted and an
  /// access still naming a local is undeterminable.
  static void localize(Summary& s, const Body& body) {
    std::set<std::string> locals;
    bound_in(body, locals);
    std::map<std::string, Poly> defs;
    for (const Stmt& st : body.stmts)
      if (const auto* l = std::get_if<SLet>(&st.node))
        if (l->pats.size() == 1)
          if (const auto* e = std::get_if<EScalar>(&l->exp.node))
            if (auto p = to_poly(*e->e)) defs[l->pats[0].name.s] = *p;
    std::vector<Acc> kept;
    for (Acc a : s.accs) {
      for (int round = 0; round < 16; ++round) {
        std::map<std::string, Poly> sub;
        for (const std::string& v : lmad_free_vars(a.l))
          if (defs.count(v)) sub[v] = defs.at(v);
        if (sub.empty()) break;
        a.l = lmad_substitute(a.l, sub);
      }
      std::optional<std::string> local;
      for (const std::string& v : lmad_free_vars(a.l))
        if (locals.count(v)) local = v;
      if (local) {
        if (!s.undet)
          s.undet = a.what + " depends on " + *local + ", which each iteration computes itself";
        continue;
      }
      kept.push_back(std::move(a));
    }
    s.accs = std::move(kept);
  }

  /// U^{!=i}: the uses of the other iterations j != i of `iter < bound`.
  Summary others(const Summary& in, const std::string& iter, const SExpP& bound,
                 bool before = true) {
    Summary out;
    out.undet = in.undet;
    auto b = bound ? to_poly(*bound) : std::nullopt;
    const std::string j = fresh_name(names(), iter + "_other");
    Poly i = Poly::var(iter);
    for (const Acc& a : in.accs) {
      if (!mentions(a.l, iter)) {
        out.accs.push_back(
            {a.l, a.what + (before ? " (in every thread)" : " (in every iteration)")});
        continue;
      }
      SymLmad lj = lmad_substitute(a.l, {{iter, Poly::var(j)}});
      auto lo = b ? lmad_expand(j, Poly(0), i, lj) : std::nullopt;
      auto hi = b ? lmad_expand(j, i + Poly(1), *b - i - Poly(1), lj) : std::nullopt;
      if (!lo || !hi) {
        if (!out.undet) out.undet = a.what + " is not affine in " + iter;
        continue;
      }
      const char* who = before ? " by threads " : " in iterations ";
      if (before) out.accs.push_back({*lo, a.what + who + iter + "' < " + iter});
      out.accs.push_back({*hi, a.what + who + iter + "' > " + iter});
    }
    return out;
  }

  /// 6.6.1 for a loop carrying the source: within an iteration, each write of an alias
  /// against the uses after it; the writes of iteration i against the uses of the later
  /// iterations (U^{>i}); all its writes against the uses after the loop (U). Returns
  /// the writes of all iterations.
  std::vector<Acc> loop_checks(const Carried& cl, const ELoop& x,
                               const std::set<std::string>& dmems,
                               const std::map<std::string, SymLmad>& fam, const Summary& U,
                               const std::vector<Formula>& facts, Solver& solver, ScAttempt& a) {
    std::vector<Formula> lf = facts;
    range_facts(x.iter.s, x.bound, lf);
    for (const Stmt& st : x.body.stmts)
      for (Formula& f : stmt_facts(st))
        lf.push_back(std::move(f));
    poly_defs(x.body, x.body.stmts.size(), defs_);
    Solver& ls = solver_for(lf);
    Account acc{ls, a};
    Summary later;
    for (size_t bd = x.body.stmts.size(); bd-- > 0;) {
      std::vector<Acc> W;
      for (const auto& [i, w] : cl.writes)
        if (i == bd) W.push_back(w);
      check(W, later, ls, "6.4.3", a);
      uses(x.body.stmts[bd], dmems, fam, later);
    }
    localize(later, x.body);
    Summary Wi;
    for (const auto& [i, w] : cl.writes)
      Wi.accs.push_back(w);
    localize(Wi, x.body);
    if (Wi.undet)
      throw Refused{"6.6.1 loops", "the writes of the loop at " + at(x.body.pos) +
                                       " cannot be summarised: " + *Wi.undet};
    check(Wi.accs, others(later, x.iter.s, x.bound, false), ls, "6.6.1 later iterations", a);
    std::vector<Acc> total;
    auto b = x.bound ? to_poly(*x.bound) : std::nullopt;
    for (const Acc& w : Wi.accs) {
      if (!mentions(w.l, x.iter.s)) {
        total.push_back(w);
        continue;
      }
      auto e = b ? lmad_expand(x.iter.s, Poly(0), *b, w.l) : std::nullopt;
      if (!e) throw Refused{"6.6.1 loops", w.what + " is not affine in " + x.iter.s};
      total.push_back({*e, w.what + " over all " + x.iter.s});
    }
    check(total, U, solver, "6.4.3", a);
    return total;
  }

  /// Every write must be disjoint from every use; the prover decides.
  void check(const std::vector<Acc>& W, const Summary& U, Solver& solver, const std::string& rule,
             ScAttempt& a) {
    if (W.empty()) return;
    if (rule == "6.4.3" && opt_.broken_no_overlap) return; // deliberately broken
    if (U.undet)
      throw Refused{rule == "6.4.3" ? "6.4.3 non-overlap" : rule + " non-overlap",
                    "the uses of " + a.dest_mem + " cannot be summarised: " + *U.undet +
                        " (undeterminable summary)"};
    for (const Acc& w : W)
      for (const Acc& u : U.accs) {
        ProveResult r = prove_disjoint(lmad_substitute(w.l, defs_), lmad_substitute(u.l, defs_),
                                       solver, opt_.prover);
        ScProof pr{rule, w.what + " " + w.l.to_string(), u.what + " " + u.l.to_string(),
                   summary(r)};
        a.proofs.push_back(pr);
        if (r.answer != Answer::Disjoint)
          throw Refused{rule == "6.4.3" ? "6.4.3 non-overlap" : rule + " non-overlap",
                        w.what + " " + w.l.to_string() + " may overlap the " +
                            (rule == "6.4.3" ? "later " : "") + u.what + " " + u.l.to_string() +
                            ": " + summary(r)};
      }
  }

  // ------------------------------------------------------------ the sweep

  bool sweep(Body& b, std::vector<Frame>& fr) {
    for (size_t p = b.stmts.size(); p-- > 0;) {
      fr.back().idx = p;
      Stmt& s = b.stmts[p];
      auto* l = std::get_if<SLet>(&s.node);
      if (!l) continue;
      if (points(b, p, fr, *l, s.pos)) return true;
      bool changed = false;
      std::visit(
          Overloaded{[&](EKernel& x) {
                       fr.push_back(Frame{&x.body, 0, Frame::Kind::Kernel, x.iter.s, x.bound});
                       changed = sweep(x.body, fr);
                       fr.pop_back();
                     },
                     [&](ELoop& x) {
                       fr.push_back(Frame{&x.body, 0, Frame::Kind::Loop, x.iter.s, x.bound});
                       changed = sweep(x.body, fr);
                       fr.pop_back();
                     },
                     [&](EIf& x) {
                       fr.push_back(Frame{&x.then_body, 0, Frame::Kind::Branch, "", {}});
                       changed = sweep(x.then_body, fr);
                       fr.back().body = &x.else_body;
                       if (!changed) changed = sweep(x.else_body, fr);
                       fr.pop_back();
                     },
                     [](auto&) {}},
          l->exp.node);
      if (changed) return true;
    }
    return false;
  }

  /// The points of one statement; true when one succeeded (the program changed).
  bool points(Body& b, size_t p, std::vector<Frame>& fr, SLet& l, Pos pos) {
    if (l.pats.size() != 1) return false;
    auto dst = arr(l.pats[0].name.s);
    if (!dst) return false;
    auto base = [&](ScKind k, const std::string& x, Pos where) {
      Point pt;
      pt.kind = k;
      pt.pos = where;
      pt.B = &b;
      pt.P = p;
      pt.x = x;
      pt.dest = l.pats[0].name.s;
      pt.ysm = dst->mem;
      pt.frames = fr;
      return pt;
    };
    // An update of `dest` with `x`: the place's bounds are checked against dest's shape.
    auto update = [&](const std::string& x, const std::string& dest) {
      Point pt = base(ScKind::Update, x, pos);
      pt.dest = dest;
      pt.dest_dims = dst->dims;
      return pt;
    };
    try {
      if (auto* x = std::get_if<EUpdate>(&l.exp.node)) {
        const auto* v = std::get_if<Name>(&x->value.v);
        if (!v || !arr(v->s)) return false;
        Point pt = update(v->s, x->arr.s);
        pt.entries = sym_entries(x->entries);
        pt.syn_entries = &x->entries;
        if (const auto& t = l.pats[0].type) pt.dest_dims_syn = t->dims;
        pt.lnew = lmad_index(dst->lay, *pt.entries);
        return attempt(pt);
      }
      if (auto* x = std::get_if<EUpdateLmad>(&l.exp.node)) {
        Point pt = update(x->value.s, x->arr.s);
        pt.inner = sym_lmad(x->lmad);
        pt.lnew = lmad_compose(dst->lay, *pt.inner);
        return attempt(pt);
      }
      if (auto* x = std::get_if<EConcat>(&l.exp.node)) {
        const auto& ta = arr(x->a.s);
        if (!ta || ta->dims.empty()) return false;
        Poly na = ta->dims[0];
        Poly nb = dst->dims[0] - na;
        Point pb = base(ScKind::Concat, x->b.s, pos);
        pb.other = x->a.s;
        pb.lnew = lmad_index(dst->lay, {SymEntry{na, nb, Poly(1)}});
        if (attempt(pb)) return true;
        Point pa = base(ScKind::Concat, x->a.s, pos);
        pa.other = x->b.s;
        pa.lnew = lmad_index(dst->lay, {SymEntry{Poly(0), na, Poly(1)}});
        return attempt(pa);
      }
      if (auto* x = std::get_if<ECopy>(&l.exp.node)) {
        // `let y = copy x`: x is built where y lives and the copy reads and writes the
        // same places. A copy of a view or of a parameter is how an array is made from
        // one that stays: not a point.
        if (!arr(x->arr.s)) return false;
        for (std::string v = x->arr.s;;) {
          auto site = ix_.site.find(v);
          if (site == ix_.site.end()) return false;
          const auto& def =
              std::get<SLet>(site->second.first->stmts[site->second.second].node).exp.node;
          if (std::holds_alternative<EIndex>(def) || std::holds_alternative<ELmadSlice>(def))
            return false;
          const auto* t = std::get_if<ETranspose>(&def);
          if (!t) break;
          v = t->arr.s;
        }
        Point pt = base(ScKind::Copy, x->arr.s, pos);
        pt.lnew = dst->lay;
        return attempt(pt);
      }
      if (auto* x = std::get_if<EKernel>(&l.exp.node)) {
        if (x->body.results.size() != 1) return false;
        const Name& r = x->body.results[0];
        if (!arr(r.s)) return scalar_map(b, p, fr, l, *x, pos);
        Point pt = base(ScKind::KernelResult, r.s, r.pos);
        pt.B = &x->body;
        pt.P = x->body.stmts.size();
        pt.frames.push_back(Frame{&x->body, pt.P, Frame::Kind::Kernel, x->iter.s, x->bound});
        pt.lnew = lmad_fix(dst->lay, Poly::var(x->iter.s));
        return attempt(pt);
      }
    } catch (const Untranslatable&) {
      return false; // indices that are not polynomials: not a point we can describe
    }
    return false;
  }

  static std::string key(const Point& pt) {
    return at(pt.pos) + " " + sc_kind_name(pt.kind) + " " + pt.x;
  }

  bool attempt(Point& pt) {
    if (decided_.count(key(pt))) return false;
    const auto& src = arr(pt.x);
    if (!src) return false;
    if (same_block(src->mem, pt.ysm) && src->mem == pt.ysm && src->lay == pt.lnew)
      return false; // already built in place
    decided_.insert(key(pt));
    auto t0 = std::chrono::steady_clock::now();
    ScAttempt a;
    a.kind = pt.kind;
    a.pos = pt.pos;
    a.source = pt.x;
    a.dest = pt.dest;
    a.dest_mem = pt.ysm;
    a.projected = pt.lnew.to_string();
    last_creation_.reset();
    return record(std::move(a), t0, [&](ScAttempt& at) {
      const ScAttempt pristine = at;
      try {
        analyse(pt, at);
      } catch (const Refused&) {
        // The destination may be created between the source's creation and the point
        // (and overwrite the source there): when its creation and what it needs can
        // move above the source's creation, the attempt is made again with them there.
        auto moved = hoist_destination(pt);
        if (!moved) throw;
        ScAttempt again = pristine;
        try {
          analyse(pt, again);
        } catch (const Refused&) {
          std::copy(moved->stmts.begin(), moved->stmts.end(),
                    pt.B->stmts.begin() + static_cast<long>(moved->from));
          reindex();
          throw;
        }
        again.lifted.insert(again.lifted.begin(), moved->what);
        at = std::move(again);
      }
    });
  }

  void reindex() {
    ix_ = Index{};
    for (Binding& b : p_.def.params)
      ix_.binding[b.name.s] = &b;
    ix_.body(p_.def.body);
    arr_cache_.clear();
    names_.reset();
  }

  /// Statements of the point's body as they were before a hoist, from index `from`.
  struct Hoisted {
    size_t from = 0;
    std::vector<Stmt> stmts;
    std::string what;
  };

  /// Moves the destination's creation (with the allocation and the definitions it
  /// needs) above the source's creation, when it is made between them in the point's
  /// body from nothing the source's creation makes, writes only fresh blocks, and
  /// neither it nor anything it moves past can fail (the run ends as before).
  std::optional<Hoisted> hoist_destination(const Point& pt) {
    if (pt.kind == ScKind::KernelResult || pt.branch_result || !last_creation_) return std::nullopt;
    Body& B = *pt.B;
    const size_t c = *last_creation_;
    // The statements between the creation and the point that create arrays in the
    // destination's block (its root, or an array the destination's block is shared with).
    const std::set<std::string> dmems = block_names(pt.ysm);
    std::set<size_t> move;
    size_t e = c;
    std::string d;
    for (size_t k = c + 1; k < pt.P; ++k) {
      const auto* l = std::get_if<SLet>(&B.stmts[k].node);
      if (!l || !fresh_creation(l->exp)) continue;
      for (const Binding& b : l->pats)
        if (b.type && b.type->ann && dmems.count(b.type->ann->mem.s)) {
          move.insert(k);
          e = k;
          d += (d.empty() ? "" : ", ") + b.name.s;
        }
    }
    if (move.empty()) return std::nullopt;
    // What they need from (c, e).
    std::vector<size_t> todo(move.begin(), move.end());
    while (!todo.empty()) {
      size_t k = todo.back();
      todo.pop_back();
      std::set<std::string> names, mems;
      stmt_mentions(B.stmts[k], names, mems);
      names.insert(mems.begin(), mems.end());
      for (const std::string& n : names) {
        auto it = ix_.site.find(n);
        if (it == ix_.site.end() || it->second.first != &B) continue;
        size_t dk = it->second.second;
        if (dk == c) return std::nullopt; // needs the source's creation itself
        if (dk > c && dk < e && move.insert(dk).second) todo.push_back(dk);
      }
    }
    // The run ends as before when the moved statements cannot fail, or when the ones
    // they move past cannot.
    Solver& solver = solver_for(facts_at(pt.frames, c));
    bool moved_fail = false, passed_fail = false;
    std::set<std::string> fresh;
    for (size_t k = c; k <= e; ++k) {
      const SLet* l = std::get_if<SLet>(&B.stmts[k].node);
      if (!move.count(k)) {
        passed_fail = passed_fail || may_fail(B.stmts[k], solver, 0);
        continue;
      }
      if (!l) return std::nullopt;
      moved_fail = moved_fail || may_fail(B.stmts[k], solver, 0);
      if (std::holds_alternative<EAlloc>(l->exp.node)) fresh.insert(l->pats[0].name.s);
    }
    if (moved_fail && passed_fail) return std::nullopt;
    // Nothing they move past touches the blocks they allocate.
    for (size_t k = c; k <= e; ++k) {
      if (move.count(k)) continue;
      std::set<std::string> names, mems;
      stmt_mentions(B.stmts[k], names, mems);
      for (const std::string& m : mems)
        if (fresh.count(m)) return std::nullopt;
    }
    for (size_t k : move) {
      const SLet& l = std::get<SLet>(B.stmts[k].node);
      bool scalar =
          std::holds_alternative<EScalar>(l.exp.node) || std::holds_alternative<EAlloc>(l.exp.node);
      if (!fresh_creation(l.exp) && !scalar) return std::nullopt;
      for (const Binding& b : l.pats)
        if (b.type && b.type->ann && !fresh.count(b.type->ann->mem.s)) return std::nullopt;
    }
    Hoisted h;
    h.from = c;
    h.stmts.assign(B.stmts.begin() + static_cast<long>(c),
                   B.stmts.begin() + static_cast<long>(e) + 1);
    h.what = d + " (the destination's creation, with what it needs)";
    std::vector<Stmt> order;
    for (size_t k = c; k <= e; ++k)
      if (move.count(k)) order.push_back(B.stmts[k]);
    for (size_t k = c; k <= e; ++k)
      if (!move.count(k)) order.push_back(B.stmts[k]);
    std::copy(order.begin(), order.end(), B.stmts.begin() + static_cast<long>(c));
    reindex();
    return h;
  }

  /// Runs an attempt's analysis and records its outcome and time (a NotCandidate
  /// passes through unrecorded); true when it was proved and applied.
  template <class F>
  bool record(ScAttempt a, std::chrono::steady_clock::time_point t0, F analysis) {
    try {
      analysis(a);
      a.proved = true;
    } catch (const Refused& r) {
      a.property = r.property;
      a.reason = r.reason;
    } catch (const Untranslatable& u) {
      a.property = "summary";
      a.reason = u.what();
    }
    a.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    rep_.attempts.push_back(a);
    return a.proved;
  }

  // ------------------------------------------------------------ one attempt

  /// What an attempt's transformation needs once every check has passed: the family
  /// of the source in the body of the point, the loops that carry it, the definitions
  /// lifted to its creation, and, for an `if` that creates it, the same for each
  /// branch.
  struct Plan {
    Body* B = nullptr;
    size_t c = 0; // the creation
    std::string ysm;
    std::map<std::string, SymLmad> fam;
    std::vector<Carried> carried;
    std::map<std::string, std::string> fam_mem;
    std::set<size_t> lift;
    std::vector<Stmt> checks;      // run-time bounds checks placed at the creation
    std::vector<Plan> branches;    // the creation is an `if`: then, else
    size_t if_result = 0;          // the source's position among the if's results
    std::optional<size_t> outside; // the branch whose result is created before the if
  };

  void analyse(Point& pt, ScAttempt& a) {
    Plan p = plan_for(pt, a);
    std::set<std::string> old_mems;
    apply(p, old_mems, a);
    for (const std::string& m : old_mems)
      if (m != pt.ysm && remove_alloc_if_dead(m)) a.removed.push_back(m);
  }

  /// Steps 1 to 7 of an attempt: every check, no change; throws Refused.
  Plan plan_for(const Point& pt, ScAttempt& a) {
    // A branch's plan is made in the middle of its if's: the if's carried loops wait.
    std::vector<Carried> outer_carried = std::move(carried_);
    std::map<std::string, std::string> outer_fam_mem = std::move(fam_mem_);
    std::map<std::string, ArrT> outer_also = std::move(also_);
    carried_.clear();
    fam_mem_.clear();
    also_.clear();
    for (const auto& [n, l] : pt.also)
      if (const auto& t = arr(n)) {
        ArrT at_dest = *t;
        at_dest.mem = pt.ysm;
        at_dest.lay = l;
        also_[n] = at_dest;
      }
    Plan out = plan_here(pt, a);
    out.carried = std::move(carried_);
    out.fam_mem = std::move(fam_mem_);
    carried_ = std::move(outer_carried);
    fam_mem_ = std::move(outer_fam_mem);
    also_ = std::move(outer_also);
    return out;
  }

  Plan plan_here(const Point& pt, ScAttempt& a) {
    Plan plan;
    plan.B = pt.B;
    plan.ysm = pt.ysm;
    Body& B = *pt.B;
    const std::string& x = pt.x;
    // 1. Back from the point to the creation of x, reversing transpositions.
    std::string cur = x;
    SymLmad L = pt.lnew;
    size_t c = 0;
    std::optional<size_t> if_result;
    for (;;) {
      auto it = ix_.site.find(cur);
      if (pt.branch_result && (it == ix_.site.end() || it->second.first != &B))
        throw Refused{"creation point", cur + " comes from outside the branch that returns it; "
                                              "each branch of the if must create its result"};
      if (it == ix_.site.end() || it->second.first != &B || it->second.second >= pt.P)
        throw Refused{
            "creation point",
            cur + " is " +
                (it == ix_.site.end() ? std::string("a parameter")
                                      : "defined outside the body of the point") +
                "; only arrays created there by kernel, iota, replicate, copy, "
                "scratch, concat or an if whose branches create them can be built in place"};
      size_t d = it->second.second;
      const Stmt& st = B.stmts[d];
      const SLet& l = std::get<SLet>(st.node);
      std::optional<std::string> next;
      bool created = false;
      std::visit(
          Overloaded{[&](const ETranspose& t) {
                       L = lmad_transpose(L);
                       next = t.arr.s;
                     },
                     [&](const EUpdate& u) { next = u.arr.s; },
                     [&](const EUpdateLmad& u) { next = u.arr.s; },
                     [&](const EIndex& v) {
                       throw Refused{"6.4.1 change of layout",
                                     cur + " is a slice of " + v.arr.s + " (at " + at(st.pos) +
                                         "): only transpositions can be reversed"};
                     },
                     [&](const ELmadSlice& v) {
                       throw Refused{"6.4.1 change of layout",
                                     cur + " is an LMAD slice of " + v.arr.s + " (at " +
                                         at(st.pos) + "): only transpositions can be reversed"};
                     },
                     [&](const ELoop& lp) {
                       size_t j = 0;
                       while (j < l.pats.size() && l.pats[j].name.s != cur)
                         ++j;
                       auto is_mem = [](const Binding& b) {
                         return b.type && b.type->kind == Type::Kind::Mem;
                       };
                       bool in_place = j >= 1 && j < l.pats.size() && j < lp.params.size() &&
                                       j < lp.inits.size() && j < lp.body.results.size() &&
                                       is_mem(l.pats[j - 1]) && is_mem(lp.params[j - 1]) &&
                                       lp.params[j].type && lp.params[j].type->ann &&
                                       lp.params[j].type->ann->mem.s == lp.params[j - 1].name.s &&
                                       lp.body.results[j - 1].s == lp.params[j - 1].name.s;
                       if (in_place) {
                         const auto& init = arr(lp.inits[j].s);
                         in_place = init && init->mem == lp.inits[j - 1].s;
                       }
                       if (!in_place)
                         throw Refused{"creation point",
                                       cur + " is a result of the loop at " + at(st.pos) +
                                           ", which does not carry it in its own block (an array "
                                           "creation point or an in-place loop is needed)"};
                       carried_.push_back(Carried{&lp, d, j, {}});
                       fam_mem_[lp.params[j].name.s] = lp.params[j - 1].name.s;
                       fam_mem_[cur] = l.pats[j - 1].name.s;
                       next = lp.inits[j].s;
                     },
                     [&](const EIf&) {
                       size_t j = 0;
                       while (j < l.pats.size() && l.pats[j].name.s != cur)
                         ++j;
                       const auto& t = j < l.pats.size() ? l.pats[j].type : std::nullopt;
                       if (j == 0 || !t || !t->ann || !l.pats[j - 1].type ||
                           l.pats[j - 1].type->kind != Type::Kind::Mem ||
                           t->ann->mem.s != l.pats[j - 1].name.s)
                         throw Refused{"creation point", cur + ", a result of the if at " +
                                                             at(st.pos) +
                                                             ", is not returned with its block"};
                       // The if keeps returning a block for its result: each branch's.
                       fam_mem_[cur] = l.pats[j - 1].name.s;
                       if_result = j;
                       created = true;
                     },
                     [&](const auto&) { created = true; }},
          l.exp.node);
      if (created) {
        c = d;
        break;
      }
      cur = *next;
    }
    const std::string root = cur;
    if (!pt.branch_result) last_creation_ = c;
    const SLet& cl = std::get<SLet>(B.stmts[c].node);
    a.creation = root + " by " + creation_text(cl, B.stmts[c].pos);
    plan.c = c;

    // 2. Forward: the aliases of the root up to the point, with projected LMADs.
    std::map<std::string, SymLmad> fam{{root, L}};
    std::vector<std::pair<size_t, Acc>> fam_writes;
    for (size_t d = c + 1; d < pt.P; ++d)
      family(B.stmts[d], fam, false, d, fam_writes);
    if (!fam.count(x) || !(fam.at(x) == pt.lnew))
      throw Refused{"6.4.1 change of layout", "the aliases of " + root + " do not lead to " + x};

    // 3. Last use: no alias of x after the point.
    {
      std::set<std::string> after, mems;
      for (size_t d = pt.P + 1; d < B.stmts.size(); ++d)
        stmt_mentions(B.stmts[d], after, mems);
      if (pt.branch_result) { // the branch's other results
        for (size_t k = 0; k < B.results.size(); ++k)
          if (k != *pt.branch_result) after.insert(B.results[k].s);
      } else if (pt.kind != ScKind::KernelResult) {
        for (const Name& r : B.results)
          after.insert(r.s);
      }
      // `concat x x`: the point itself reads x for the other half, which lies beside
      // the half x is built in.
      if (!pt.other.empty() && pt.other != x) after.insert(pt.other);
      for (const auto& [n, _] : fam)
        if (after.count(n))
          throw Refused{"last use", (n == x ? x : n + " (an alias of " + x + ")") +
                                        " is used after the point, so its memory is still live"};
    }

    // 4. 6.2 (1) and 6.4.2: the destination's memory and the names of the projected
    //    LMAD must exist at the creation; later definitions are lifted when they can be.
    std::set<size_t> lift;
    need(B, c, pt.P, fam, pt.ysm, "6.2 (1) destination memory", lift);
    for (const std::string& v : lmad_free_vars(pt.lnew))
      need(B, c, pt.P, fam, v, "6.4.2 index-function projection", lift);

    std::vector<Formula> facts = facts_at(pt.frames, pt.P);
    // A source whose own layout sends several elements to one place (a zero stride)
    // races at its creation; built elsewhere, the race would be gone from the program.
    if (const auto& rt = arr(root))
      for (const auto& [cnt, st] : rt->lay.dims)
        if (st == Poly(0) && !solver_for(facts).proves(le(cnt, Poly(1))))
          throw Refused{"creation point", root + "'s layout " + rt->lay.to_string() +
                                              " puts several elements in one place, so its "
                                              "creation races; it stays where it is"};
    set_defs(pt.frames, pt.P);
    Solver& solver = solver_for(facts);
    Account acc1{solver, a};

    // An `if` creates the source: each branch builds its result where the source
    //    goes, as if the end of the branch were a point of its own.
    size_t bounds_at = c;
    if (if_result) {
      auto& f = std::get<EIf>(std::get<SLet>(B.stmts[c].node).exp.node);
      Body* brs[2] = {&f.then_body, &f.else_body};
      // A branch may return an array created before the if (in this body): it is then
      // built in place from its creation, as for a point at the if, and the other
      // branch's uses of it count as uses of the destination. Only one may: two such
      // arrays in one place would overwrite each other.
      std::optional<size_t> outside;
      for (size_t k = 0; k < 2; ++k) {
        if (*if_result >= brs[k]->results.size()) throw Refused{"creation point", "malformed if"};
        auto it = ix_.site.find(brs[k]->results[*if_result].s);
        if (it != ix_.site.end() && it->second.first == brs[k]) continue;
        if (outside)
          throw Refused{"creation point", "both branches of the if at " + at(B.stmts[c].pos) +
                                              " return arrays created outside them; in one "
                                              "place, one would overwrite the other"};
        outside = k;
      }
      std::optional<Plan> outer_branch;
      if (outside) {
        Point sp = pt;
        sp.P = c;
        sp.x = brs[*outside]->results[*if_result].s;
        sp.lnew = L;
        sp.entries.reset();
        sp.inner.reset();
        sp.syn_entries = nullptr;
        sp.other.clear();
        sp.frames.back().idx = c;
        outer_branch = plan_for(sp, a);
        bounds_at = outer_branch->c;
        // What the place needs must exist at that creation: defined before the if (a
        // definition after it is lifted to the if at most).
        std::vector<std::string> needed = lmad_free_vars(L);
        needed.push_back(pt.ysm);
        for (const std::string& v : needed) {
          auto it = ix_.site.find(v);
          if (it != ix_.site.end() && it->second.first == &B && it->second.second >= c)
            throw Refused{"6.2 (1) destination memory",
                          v + " is defined after the if at " + at(B.stmts[c].pos) + ", but " +
                              sp.x + ", which a branch returns, is created before it"};
        }
      }
      for (size_t k = 0; k < 2; ++k) {
        Body* br = brs[k];
        if (outside && *outside == k) {
          plan.branches.push_back(*outer_branch);
          continue;
        }
        Point sp = pt;
        if (outer_branch) {
          sp.also = outer_branch->fam;
          // Its element reads there count as uses of the destination; a view or an
          // update of it would be another name for the destination's place.
          std::function<void(const Body&)> scan = [&](const Body& body) {
            for (const Stmt& st : body.stmts) {
              const auto* l = std::get_if<SLet>(&st.node);
              if (!l) continue;
              std::optional<std::string> of;
              std::visit(Overloaded{[&](const EIndex& x) {
                                      const auto& t = arr(x.arr.s);
                                      bool element = t && x.entries.size() == t->dims.size();
                                      for (const Entry& e : x.entries)
                                        element = element && !e.count;
                                      if (!element) of = x.arr.s;
                                    },
                                    [&](const ELmadSlice& x) { of = x.arr.s; },
                                    [&](const ETranspose& x) { of = x.arr.s; },
                                    [&](const EUpdate& x) { of = x.arr.s; },
                                    [&](const EUpdateLmad& x) { of = x.arr.s; },
                                    [&](const auto&) {}},
                         l->exp.node);
              if (of && sp.also.count(*of))
                throw Refused{"creation point",
                              "the other branch of the if at " + at(B.stmts[c].pos) +
                                  " makes a view or an update of " + *of + " (at " + at(st.pos) +
                                  "), which would be built in the destination"};
              each_body(const_cast<Stmt&>(st), [&](Body& in) { scan(in); });
            }
          };
          scan(*br);
        }
        sp.B = br;
        sp.P = br->stmts.size();
        sp.x = br->results[*if_result].s;
        sp.lnew = L;
        sp.entries.reset();
        sp.inner.reset();
        sp.other.clear();
        sp.branch_result = *if_result;
        sp.frames.back().idx = c;
        sp.frames.push_back(Frame{br, sp.P, Frame::Kind::Branch, "", {}});
        plan.branches.push_back(plan_for(sp, a));
      }
      plan.if_result = *if_result;
      plan.outside = outside;
    }

    // 5. Bounds: the place must lie inside the destination. The source is then built
    //    there from its creation on, so only the facts that hold at the creation (and
    //    the definitions lifted to it) may show it: an `assume` between the creation and
    //    the point runs after the first write.
    std::vector<Formula> cfacts = facts_at(
        pt.frames, opt_.broken_late_facts ? pt.P : bounds_at); // (deliberately broken)
    for (size_t d : lift)
      for (Formula& f : stmt_facts(B.stmts[d]))
        cfacts.push_back(std::move(f));
    Solver& bsolver = solver_for(cfacts);
    Account acc_b{bsolver, a};
    if (auto bd = bounds(pt, bsolver)) {
      const std::map<std::string, Poly>& defs = defs_;
      bool ok = !bd->positive.empty();
      for (const Poly& d : bd->positive)
        ok = ok && prove_positive(d.substitute(defs), pt.frames, bsolver);
      if (ok || bsolver.proves(bd->whole.substitute(defs))) {
        a.proofs.push_back({"bounds", "place " + pt.lnew.to_string(), "shape of " + pt.dest,
                            "inside: " + bd->whole.to_string()});
      } else {
        std::string why = runtime_checks(pt, c, fam, lift, bsolver, plan.checks);
        if (!why.empty())
          throw Refused{"bounds",
                        "the updated place of " + pt.dest + " is not provably inside it (" +
                            bd->whole.to_string() +
                            "), and its run-time check cannot move to the creation: " + why};
        std::string conds;
        for (const Stmt& st : plan.checks)
          conds += (conds.empty() ? "" : "; ") + print_sexp(*std::get<SAssume>(st.node).cond);
        a.proofs.push_back({"bounds", "place " + pt.lnew.to_string(), "shape of " + pt.dest,
                            "checked at run time at the creation: " + conds});
      }
    }

    // 6. 6.4.3: bottom-up from the point to the creation.
    std::set<std::string> dmems = block_names(pt.ysm);
    for (const Carried& cl : carried_) {
      const SLet& ll = std::get<SLet>(B.stmts[cl.d].node);
      dmems.insert(std::get<ELoop>(ll.exp.node).params[cl.j - 1].name.s);
      dmems.insert(ll.pats[cl.j - 1].name.s);
    }
    std::vector<Acc> loop_writes;
    const bool scratch = std::holds_alternative<EScratch>(cl.exp.node);
    Summary U;
    for (size_t d = pt.P; d-- > c + 1;) {
      std::vector<Acc> W;
      for (const auto& [dd, w] : fam_writes)
        if (dd == d) W.push_back(w);
      check(W, U, solver, "6.4.3", a);
      for (const Carried& cl : carried_)
        if (cl.d == d) {
          const ELoop& lp = std::get<ELoop>(std::get<SLet>(B.stmts[d].node).exp.node);
          for (Acc& w : loop_checks(cl, lp, dmems, fam, U, facts, solver, a))
            loop_writes.push_back(std::move(w));
        }
      uses(B.stmts[d], dmems, fam, U);
    }
    Acc whole{L, "creation of " + root + " (" + creation_text(cl, B.stmts[c].pos) + ")"};
    if (const auto* k = std::get_if<EKernel>(&cl.exp.node)) {
      // 6.6.2: thread i writes fix(L, i) at its end; no other thread may use it.
      Summary Uk;
      std::vector<Formula> kf = facts;
      range_facts(k->iter.s, k->bound, kf);
      for (const Stmt& st : k->body.stmts) {
        uses(st, dmems, fam, Uk);
        for (Formula& f : stmt_facts(st))
          kf.push_back(std::move(f));
      }
      localize(Uk, k->body);
      Solver& ks = solver_for(kf);
      Account acc2{ks, a};
      Acc wi{lmad_fix(L, Poly::var(k->iter.s)),
             "write of thread " + k->iter.s + " of the kernel creating " + root};
      check({wi}, others(Uk, k->iter.s, k->bound), ks, "6.6.2 other threads", a);
      check({whole}, U, solver, "6.4.3", a);
    } else if (!scratch) {
      Summary Uc = U;
      uses(B.stmts[c], dmems, fam, Uc);
      check({whole}, Uc, solver, "6.4.3", a);
    }

    // 7. A point inside a kernel whose threads share the destination: the writes of
    //    thread i against the uses of every other thread.
    const Frame& bf = pt.frames.back();
    auto ms = ix_.site.find(pt.ysm);
    bool local = ms != ix_.site.end() && ms->second.first == &B;
    if (bf.kind == Frame::Kind::Kernel && !local) {
      Summary Ub;
      for (const Stmt& st : B.stmts)
        uses(st, dmems, fam, Ub);
      localize(Ub, B);
      std::vector<Acc> Wb;
      if (!scratch) Wb.push_back(whole);
      for (const auto& [dd, w] : fam_writes)
        Wb.push_back(w);
      Wb.insert(Wb.end(), loop_writes.begin(), loop_writes.end());
      check(Wb, others(Ub, bf.iter, bf.bound), solver, "6.6.2 threads of the enclosing kernel", a);
    }

    plan.fam = std::move(fam);
    plan.lift = std::move(lift);
    return plan;
  }

  /// Step 8: new annotations, lifted definitions; the blocks that the rewritten arrays
  /// lived in are collected for removal once every plan is applied.
  void apply(Plan& p, std::set<std::string>& old_mems, ScAttempt& a) {
    Body& B = *p.B;
    std::map<std::string, LmadSyn> syn;
    for (const auto& [n, l] : p.fam) {
      syn[n] = explicit_syn(l);
      old_mems.insert(ix_.binding.at(n)->type->ann->mem.s);
    }
    for (const Carried& cl : p.carried)
      std::get<ELoop>(std::get<SLet>(B.stmts[cl.d].node).exp.node).inits[cl.j - 1].s = p.ysm;
    for (auto& [n, s] : syn) {
      Binding* b = ix_.binding.at(n);
      auto keep = p.fam_mem.find(n);
      b->type->ann->mem.s = keep != p.fam_mem.end() ? keep->second : p.ysm;
      b->type->ann->lmad = s;
      a.rewritten.push_back(n);
      arr_cache_.erase(n);
    }
    // The branches first: lifting moves the if's statement, and the branches with it.
    if (!p.branches.empty()) {
      auto& f = std::get<EIf>(std::get<SLet>(B.stmts[p.c].node).exp.node);
      Body* brs[2] = {&f.then_body, &f.else_body};
      for (size_t k = 0; k < p.branches.size() && k < 2; ++k) {
        Plan& bp = p.branches[k];
        // The branch returns the block its result now lives in.
        const std::string& r = brs[k]->results[p.if_result].s;
        auto keep = bp.fam_mem.find(r);
        brs[k]->results[p.if_result - 1].s = keep != bp.fam_mem.end() ? keep->second : p.ysm;
        if (!(p.outside && *p.outside == k)) apply(bp, old_mems, a);
      }
      // The array created before the if last: its lifting moves statements of this
      // body before the if (the if keeps its index).
      if (p.outside) apply(p.branches[*p.outside], old_mems, a);
    }
    if (!p.lift.empty() || !p.checks.empty()) {
      std::vector<Stmt> moved;
      for (size_t d : p.lift) {
        const SLet& l = std::get<SLet>(B.stmts[d].node);
        a.lifted.push_back(l.pats[0].name.s + " (line " + std::to_string(B.stmts[d].pos.line) +
                           ")");
        moved.push_back(B.stmts[d]);
      }
      moved.insert(moved.end(), p.checks.begin(), p.checks.end());
      for (auto it = p.lift.rbegin(); it != p.lift.rend(); ++it)
        B.stmts.erase(B.stmts.begin() + static_cast<long>(*it));
      B.stmts.insert(B.stmts.begin() + static_cast<long>(p.c), moved.begin(), moved.end());
    }
  }

  /// The aliases of the family created by statement `s` (views and updates; nested
  /// bodies add views only) and the writes of updates at top level.
  /// The aliases of a carried loop: the parameter, what the body derives from it (its
  /// updates are the body's writes), the body's result and the loop's result.
  void carried(const SLet& l, const ELoop& x, Carried& cl, std::map<std::string, SymLmad>& fam) {
    const size_t j = cl.j;
    fam[x.params[j].name.s] = fam.at(x.inits[j].s);
    for (size_t bd = 0; bd < x.body.stmts.size(); ++bd) {
      std::vector<std::pair<size_t, Acc>> w;
      family(x.body.stmts[bd], fam, false, bd, w);
      for (auto& e : w)
        cl.writes.push_back(std::move(e));
    }
    const std::string& q = x.body.results[j].s;
    if (!fam.count(q))
      throw Refused{"creation point", "the loop at " + at(x.body.pos) + " returns " + q +
                                          ", which is not built from " + x.params[j].name.s};
    fam[l.pats[j].name.s] = fam.at(q);
  }

  void family(const Stmt& s, std::map<std::string, SymLmad>& fam, bool nested, size_t d,
              std::vector<std::pair<size_t, Acc>>& writes) {
    const auto* l = std::get_if<SLet>(&s.node);
    if (!l) return;
    auto in = [&](const Name& n) { return fam.count(n.s) > 0; };
    auto pat = [&]() -> const std::string& { return l->pats.at(0).name.s; };
    // The pattern becomes an alias in the block its source is in.
    auto derive = [&](const Name& src, const SymLmad& lay) {
      fam[pat()] = lay;
      auto m = fam_mem_.find(src.s);
      if (m != fam_mem_.end()) fam_mem_[pat()] = m->second;
    };
    // An update of an alias writes its place and makes the result an alias.
    auto update = [&](const Name& arr, const SymLmad& place) {
      if (nested)
        throw Refused{"last use", arr.s + " is updated inside a nested body at " + at(s.pos)};
      writes.push_back({d, {place, "update of " + arr.s + " at " + at(s.pos)}});
      derive(arr, fam.at(arr.s));
    };
    std::visit(Overloaded{[&](const EIndex& x) {
                            if (!in(x.arr)) return;
                            const auto& t = arr(pat());
                            if (t)
                              derive(x.arr, lmad_index(fam.at(x.arr.s), sym_entries(x.entries)));
                          },
                          [&](const ELmadSlice& x) {
                            if (in(x.arr))
                              derive(x.arr, lmad_compose(fam.at(x.arr.s), sym_lmad(x.lmad)));
                          },
                          [&](const ETranspose& x) {
                            if (in(x.arr)) derive(x.arr, lmad_transpose(fam.at(x.arr.s)));
                          },
                          [&](const EUpdate& x) {
                            if (in(x.arr))
                              update(x.arr, lmad_index(fam.at(x.arr.s), sym_entries(x.entries)));
                          },
                          [&](const EUpdateLmad& x) {
                            if (in(x.arr))
                              update(x.arr, lmad_compose(fam.at(x.arr.s), sym_lmad(x.lmad)));
                          },
                          [&](const ELoop& x) {
                            Carried* cl = nullptr;
                            for (Carried& c : carried_)
                              if (!nested && c.loop == &x) cl = &c;
                            for (size_t j = 0; j < x.inits.size(); ++j)
                              if (in(x.inits[j]) && !(cl && cl->j == j))
                                throw Refused{"creation point",
                                              x.inits[j].s + " flows into the loop at " +
                                                  at(s.pos) +
                                                  ", which does not carry it in its own block"};
                            if (cl) {
                              carried(*l, x, *cl, fam);
                              return;
                            }
                            for (const Stmt& st : x.body.stmts)
                              family(st, fam, true, d, writes);
                          },
                          [&](const EIf& x) {
                            for (const Body* b : {&x.then_body, &x.else_body}) {
                              for (const Stmt& st : b->stmts)
                                family(st, fam, true, d, writes);
                              for (const Name& n : b->results)
                                if (in(n))
                                  throw Refused{"last use",
                                                n.s + " is returned by a branch of the if at " +
                                                    at(s.pos)};
                            }
                          },
                          [&](const EKernel& x) {
                            for (const Stmt& st : x.body.stmts)
                              family(st, fam, true, d, writes);
                          },
                          [](const auto&) {}},
               l->exp.node);
  }

  /// Makes `n` available at the creation (index c of B): nothing to do when it is
  /// defined before; a scalar definition or allocation between creation and point is
  /// lifted (with what it needs) unless it depends on the source.
  void need(Body& B, size_t c, size_t P, const std::map<std::string, SymLmad>& fam,
            const std::string& n, const std::string& property, std::set<size_t>& lift) {
    auto it = ix_.site.find(n);
    if (it == ix_.site.end() || it->second.first != &B) return;
    size_t d = it->second.second;
    if (d < c || d >= P || lift.count(d)) return;
    const Stmt& st = B.stmts[d];
    const SLet& l = std::get<SLet>(st.node);
    std::string where =
        n + " (defined at " + at(st.pos) + ", after the creation at " + at(B.stmts[c].pos) + ")";
    if (l.pats.size() != 1)
      throw Refused{property, where + " is computed by a loop or if and cannot be lifted"};
    std::set<std::string> deps;
    std::visit(Overloaded{[&](const EScalar& x) { sexp_vars(*x.e, deps); },
                          [&](const EAlloc& x) { sexp_vars(*x.size, deps); },
                          [&](const EIndex& x) {
                            if (fam.count(x.arr.s))
                              throw Refused{property, where + " is read from " + x.arr.s +
                                                          ", an alias of the source: it depends "
                                                          "on the source and cannot be lifted"};
                            const auto& t = arr(x.arr.s);
                            if (!t || x.entries.size() != t->dims.size())
                              throw Refused{property, where + " cannot be lifted"};
                            auto as = ix_.site.find(x.arr.s);
                            if (as != ix_.site.end() && as->second.first == &B &&
                                as->second.second > c)
                              throw Refused{property, where + " reads " + x.arr.s +
                                                          ", which is defined after the creation"};
                            for (const Entry& e : x.entries)
                              sexp_vars(*e.start, deps);
                          },
                          [&](const auto&) {
                            throw Refused{property, where + " is not a scalar definition or "
                                                            "allocation and cannot be lifted"};
                          }},
               l.exp.node);
    for (const std::string& v : deps)
      need(B, c, P, fam, v, property, lift);
    // Not moved before an `assume`: a definition may fail (a division, an overflow, a
    // read, an allocation), and the run would end with its error instead of the
    // assumption's.
    for (size_t k = c; k < d; ++k)
      if (std::holds_alternative<SAssume>(B.stmts[k].node))
        throw Refused{property,
                      where + " cannot be moved before the assume at " + at(B.stmts[k].pos)};
    lift.insert(d);
  }

  /// The update's bounds check as `assert` statements at the creation (an index, or a
  /// slice's count and its first and last element, per entry, in the order the update
  /// checks them, each blamed on the entry's position), for the entries the facts do
  /// not show inside. Empty when they can go there; otherwise why not. They can when
  /// every name they use is defined before the creation or can be lifted there, and no
  /// statement they move past can end the run first: then a failing check ends it with
  /// the update's own error before anything is written.
  std::string runtime_checks(const Point& pt, size_t c, const std::map<std::string, SymLmad>& fam,
                             std::set<size_t>& lift, Solver& solver, std::vector<Stmt>& out) {
    if (!pt.syn_entries || !pt.entries || pt.dest_dims_syn.size() < pt.syn_entries->size())
      return "only an update by indices and slices is checked there";
    Body& B = *pt.B;
    auto s_le = [](SExpP a, SExpP b) { return mk_bin(BinOp::Le, std::move(a), std::move(b)); };
    auto s_lt = [](SExpP a, SExpP b) { return mk_bin(BinOp::Lt, std::move(a), std::move(b)); };
    auto s_and = [](SExpP a, SExpP b) { return mk_bin(BinOp::And, std::move(a), std::move(b)); };
    auto within = [&](const SExpP& i, const SExpP& dim) {
      return s_and(s_le(mk_int(0), i), s_lt(i, dim));
    };
    std::vector<Stmt> checks;
    auto check = [&](SExpP cond, const std::string& kind, Pos at) {
      Stmt st{SAssume{std::move(cond), kind}, at};
      checks.push_back(std::move(st));
    };
    for (size_t k = 0; k < pt.syn_entries->size(); ++k) {
      const Entry& e = (*pt.syn_entries)[k];
      const SymEntry& se = (*pt.entries)[k];
      const Poly& dim = pt.dest_dims[k];
      const SExpP& dsyn = pt.dest_dims_syn[k];
      if (!e.count) {
        if (!solver.proves(entry_inside(se, dim)))
          check(within(e.start, dsyn), "bounds", e.start->pos);
        continue;
      }
      if (!solver.proves(ge(*se.count, Poly(0))))
        check(s_le(mk_int(0), e.count), "size", e.count->pos);
      if (solver.proves(entry_inside(se, dim))) continue;
      SExpP stride = e.stride ? e.stride : mk_int(1);
      SExpP lsyn = mk_bin(BinOp::Add, e.start,
                          mk_bin(BinOp::Mul, mk_bin(BinOp::Sub, e.count, mk_int(1)), stride));
      check(mk_bin(BinOp::Or, s_le(e.count, mk_int(0)),
                   s_and(within(e.start, dsyn), within(lsyn, dsyn))),
            "bounds", e.start->pos);
    }
    std::set<std::string> vars;
    for (const Stmt& st : checks)
      sexp_vars(*std::get<SAssume>(st.node).cond, vars);
    for (const std::string& v : vars)
      need(B, c, pt.P, fam, v, "bounds", lift);
    for (size_t d = c; d < pt.P; ++d)
      if (!lift.count(d) && may_fail(B.stmts[d], solver, 0))
        return "the statement at " + at(B.stmts[d].pos) +
               " may end the run with another error before the update";
    out = std::move(checks);
    return "";
  }

  /// Whether a statement may end the run with an error: conservative (an assume, an
  /// integer operation that may overflow or divide by zero, a read not shown inside its
  /// array, a size not shown non-negative, anything not listed).
  bool may_fail(const Stmt& s, Solver& solver, int depth) {
    const auto* l = std::get_if<SLet>(&s.node);
    if (!l || depth > 8) return true;
    auto size_may_fail = [&](const SExpP& e) {
      auto p = to_poly(*e);
      return sexp_may_fail(*e) || !p || !solver.proves(ge(p->substitute(defs_), Poly(0)));
    };
    return std::visit(
        Overloaded{[&](const EScalar& x) { return sexp_may_fail(*x.e); },
                   [&](const EIota& x) { return size_may_fail(x.n); },
                   [&](const EReplicate& x) { return size_may_fail(x.n); },
                   [&](const EAlloc& x) { return size_may_fail(x.size); },
                   [&](const EScratch&) { return false; }, [&](const ECopy&) { return false; },
                   [&](const ETranspose&) { return false; }, [&](const EConcat&) { return false; },
                   [&](const EIndex& x) {
                     const auto& t = arr(x.arr.s);
                     if (!t || x.entries.size() > t->dims.size()) return true;
                     for (size_t k = 0; k < x.entries.size(); ++k) {
                       const Entry& e = x.entries[k];
                       auto i = to_poly(*e.start);
                       if (e.count || sexp_may_fail(*e.start) || !i) return true;
                       Poly ii = i->substitute(defs_);
                       if (!solver.proves(Formula::conj({ge(ii, Poly(0)), lt(ii, t->dims[k])})))
                         return true;
                     }
                     return false;
                   },
                   [&](const EKernel& x) {
                     if (size_may_fail(x.bound)) return true;
                     std::vector<Formula> kf = solver.facts();
                     range_facts(x.iter.s, x.bound, kf);
                     Solver& ks = solver_for(kf);
                     for (const Stmt& st : x.body.stmts)
                       if (may_fail(st, ks, depth + 1)) return true;
                     return false;
                   },
                   [&](const auto&) { return true; }},
        l->exp.node);
  }

  bool sexp_may_fail(const SExp& e) {
    return std::visit(
        Overloaded{[](const Lit&) { return false; }, [](const SVar&) { return false; },
                   [&](const SUnary& u) { return u.op == UnOp::Neg || sexp_may_fail(*u.a); },
                   [&](const SBinary& b) {
                     bool arith = b.op == BinOp::Add || b.op == BinOp::Sub || b.op == BinOp::Mul ||
                                  b.op == BinOp::Div || b.op == BinOp::Mod;
                     if (arith && !is_float(e, 0)) return true;
                     return sexp_may_fail(*b.a) || sexp_may_fail(*b.b);
                   },
                   [&](const SCall& c) {
                     if (c.fn == Fn::Abs || c.fn == Fn::ToI32 || c.fn == Fn::ToI64) return true;
                     for (const SExpP& a : c.args)
                       if (sexp_may_fail(*a)) return true;
                     return false;
                   }},
        e.node);
  }

  /// Whether a scalar expression is of a floating-point type (its operations never fail).
  bool is_float(const SExp& e, int depth) {
    if (depth > 16) return false;
    auto fl = [](ScalarType t) { return t == ScalarType::F32 || t == ScalarType::F64; };
    return std::visit(Overloaded{[&](const Lit& l) { return fl(l.type); },
                                 [&](const SVar& v) {
                                   auto b = ix_.binding.find(v.name);
                                   if (b != ix_.binding.end() && b->second->type &&
                                       b->second->type->kind == Type::Kind::Scalar)
                                     return fl(b->second->type->elem);
                                   auto site = ix_.site.find(v.name);
                                   if (site == ix_.site.end()) return false;
                                   const auto* l = std::get_if<SLet>(
                                       &site->second.first->stmts[site->second.second].node);
                                   const auto* x = l ? std::get_if<EScalar>(&l->exp.node) : nullptr;
                                   return x && is_float(*x->e, depth + 1);
                                 },
                                 [&](const SUnary& u) { return is_float(*u.a, depth + 1); },
                                 [&](const SBinary& b) { return is_float(*b.a, depth + 1); },
                                 [&](const SCall& c) {
                                   if (c.fn == Fn::ToF32 || c.fn == Fn::ToF64) return true;
                                   if (c.fn == Fn::ToI32 || c.fn == Fn::ToI64 || c.args.empty())
                                     return false;
                                   return is_float(*c.args.back(), depth + 1);
                                 }},
                      e.node);
  }

  /// The bounds condition of an update's place: the whole formula, and when the facts
  /// show the place is not empty, the same as polynomials that must be positive.
  struct Bounds {
    Formula whole;
    std::vector<Poly> positive;
  };
  std::optional<Bounds> bounds(const Point& pt, Solver& solver) {
    Bounds out;
    std::vector<Formula> parts;
    bool nonempty = true;
    auto inside = [&](const Poly& lo, const Poly& hi, const Poly& dim) {
      out.positive.push_back(lo + Poly(1)); // lo >= 0
      out.positive.push_back(dim - hi);     // hi < dim
      return Formula::conj({ge(lo, Poly(0)), lt(hi, dim)});
    };
    if (pt.entries) {
      for (size_t k = 0; k < pt.entries->size() && k < pt.dest_dims.size(); ++k) {
        const SymEntry& e = (*pt.entries)[k];
        const Poly& dim = pt.dest_dims[k];
        // As polynomials that must be positive: the index, or the slice's ends.
        out.positive.push_back(e.start + Poly(1));
        out.positive.push_back(dim - e.start);
        if (e.count) {
          Poly last = e.start + (*e.count - Poly(1)) * e.stride;
          out.positive.push_back(last + Poly(1));
          out.positive.push_back(dim - last);
          nonempty = nonempty && solver.proves(ge(*e.count, Poly(1)));
        }
        parts.push_back(entry_inside(e, dim));
      }
      out.whole = Formula::conj(parts);
    } else if (pt.inner && !pt.dest_dims.empty()) {
      Poly lo = pt.inner->offset, hi = pt.inner->offset;
      std::vector<Formula> empty;
      for (const auto& [cnt, st] : pt.inner->dims) {
        Formula e = le(cnt, Poly(0));
        bool seen = false;
        for (const Formula& g : empty)
          seen = seen || g.to_string() == e.to_string();
        if (!seen) empty.push_back(e);
        nonempty = nonempty && solver.proves(ge(cnt, Poly(1)));
        Poly span = (cnt - Poly(1)) * st;
        if (solver.proves(ge(st, Poly(0))))
          hi = hi + span;
        else if (solver.proves(le(st, Poly(0))))
          lo = lo + span;
        else
          throw Refused{"bounds", "the sign of the stride " + st.to_string() +
                                      " of the updated LMAD slice is unknown"};
      }
      empty.push_back(inside(lo, hi, pt.dest_dims[0]));
      out.whole = Formula::disj(empty);
    } else {
      return std::nullopt;
    }
    if (!nonempty) out.positive.clear();
    return out;
  }

  /// Bounds lo <= v <= hi of single names, from facts of the form `v REL e` or
  /// `e REL v` (conjunctions flattened).
  struct VarBounds {
    std::map<std::string, Poly> lo, hi;
  };
  static void collect_bounds(const Formula& f, VarBounds& vb) {
    if (f.kind == Formula::Kind::And) {
      for (const Formula& k : f.kids)
        collect_bounds(k, vb);
      return;
    }
    if (f.kind != Formula::Kind::Cmp) return;
    auto single = [](const Poly& p) -> std::optional<std::string> {
      auto fv = p.free_vars();
      if (fv.size() == 1 && p == Poly::var(fv[0])) return fv[0];
      return std::nullopt;
    };
    auto add = [&](const std::string& v, Rel r, const Poly& e) {
      // v r e
      if (r == Rel::Lt) vb.hi.emplace(v, e - Poly(1));
      if (r == Rel::Le || r == Rel::Eq) vb.hi.emplace(v, e);
      if (r == Rel::Gt) vb.lo.emplace(v, e + Poly(1));
      if (r == Rel::Ge || r == Rel::Eq) vb.lo.emplace(v, e);
    };
    if (auto v = single(f.lhs)) add(*v, f.rel, f.rhs);
    if (auto v = single(f.rhs)) add(*v, mirror(f.rel), f.lhs);
  }

  /// d > 0, first with each name the polynomial is affine in and that has a known range
  /// (kernel and loop counters, `assume`d bounds) replaced by the end of its range that
  /// minimises d (the sign of its coefficient decides): Z3's nonlinear arithmetic answers
  /// the question without those names far faster. Sound: d >= the substituted d.
  bool prove_positive(Poly d, const std::vector<Frame>& frames, Solver& solver) {
    VarBounds vb;
    for (const Frame& f : frames)
      if ((f.kind == Frame::Kind::Kernel || f.kind == Frame::Kind::Loop) && f.bound)
        if (auto b = to_poly(*f.bound)) {
          vb.lo.emplace(f.iter, Poly(0));
          vb.hi.emplace(f.iter, *b - Poly(1));
        }
    for (const Formula& f : solver.facts())
      collect_bounds(f, vb);
    for (int round = 0; round < 8; ++round) {
      bool changed = false;
      for (const std::string& v : d.free_vars()) {
        Poly d0 = d.substitute({{v, Poly(0)}});
        Poly coef = d.substitute({{v, Poly(1)}}) - d0;
        if (!(d0 + coef * Poly::var(v) == d)) continue; // not affine in v
        auto lo = vb.lo.find(v), hi = vb.hi.find(v);
        std::optional<Poly> to;
        if (lo != vb.lo.end() && solver.proves(ge(coef, Poly(0))))
          to = lo->second;
        else if (hi != vb.hi.end() && solver.proves(le(coef, Poly(0))))
          to = hi->second;
        if (!to) continue;
        auto fv = to->free_vars();
        if (std::find(fv.begin(), fv.end(), v) != fv.end()) continue;
        d = d.substitute({{v, *to}});
        changed = true;
        break;
      }
      if (!changed) break;
    }
    return solver.proves(gt(d, Poly(0)));
  }

  bool remove_alloc_if_dead(const std::string& m) {
    if (body_mentions_name(p_.def.body, m)) return false;
    std::function<bool(Body&)> go = [&](Body& b) {
      for (size_t k = 0; k < b.stmts.size(); ++k) {
        auto* l = std::get_if<SLet>(&b.stmts[k].node);
        if (!l) continue;
        if (l->pats.size() == 1 && l->pats[0].name.s == m &&
            std::holds_alternative<EAlloc>(l->exp.node)) {
          b.stmts.erase(b.stmts.begin() + static_cast<long>(k));
          return true;
        }
        bool done = false;
        each_body(b.stmts[k], [&](Body& in) { done = done || go(in); });
        if (done) return true;
      }
      return false;
    };
    return go(p_.def.body);
  }

  // ------------------------------------------------------------ 6.9

  bool scalar_map(Body& B, size_t p, std::vector<Frame>& fr, SLet& l, EKernel& k, Pos pos) {
    auto ys = arr(l.pats[0].name.s);
    if (!ys || ys->dims.size() != 1) return false;
    // The candidate: an array of B read as xs[i] in the kernel body.
    for (const Stmt& st : k.body.stmts) {
      const auto* rl = std::get_if<SLet>(&st.node);
      if (!rl) continue;
      const auto* ix = std::get_if<EIndex>(&rl->exp.node);
      if (!ix || ix->entries.size() != 1 || !ix->entries[0].is_index()) continue;
      const auto* v = std::get_if<SVar>(&ix->entries[0].start->node);
      if (!v || v->name != k.iter.s) continue;
      auto xs = arr(ix->arr.s);
      if (!xs || xs->dims.size() != 1) continue;
      Point pt;
      pt.kind = ScKind::ScalarMap;
      pt.pos = pos;
      pt.x = ix->arr.s;
      if (decided_.count(key(pt))) continue;
      decided_.insert(key(pt));
      auto t0 = std::chrono::steady_clock::now();
      ScAttempt a;
      a.kind = ScKind::ScalarMap;
      a.pos = pos;
      a.source = ix->arr.s;
      a.dest = l.pats[0].name.s;
      a.dest_mem = xs->mem;
      a.projected = xs->lay.to_string();
      a.creation = a.dest + " by kernel at " + at(pos);
      try {
        if (record(std::move(a), t0,
                   [&](ScAttempt& at) { in_place_map(B, p, fr, l, k, ix->arr.s, *xs, *ys, at); }))
          return true;
      } catch (const NotCandidate&) {
        continue;
      }
    }
    return false;
  }

  void in_place_map(Body& B, size_t p, std::vector<Frame>& fr, SLet& l, EKernel& k,
                    const std::string& xs, const ArrT& xt, const ArrT& yt, ScAttempt& a) {
    const std::string& ys = l.pats[0].name.s;
    if (xt.elem != yt.elem)
      throw NotCandidate{xs + " holds " + scalar_type_name(xt.elem) + ", " + ys + " " +
                         scalar_type_name(yt.elem)};
    if (!(xt.lay == yt.lay))
      throw NotCandidate{xs + " has layout " + xt.lay.to_string() + " but " + ys + " has " +
                         yt.lay.to_string()};
    // Unique: xs is defined in this body (or is a parameter of the definition at the
    // top level) and nothing in its memory is used after the kernel.
    auto xsite = ix_.site.find(xs);
    bool here = xsite != ix_.site.end() ? xsite->second.first == &B : &B == &p_.def.body;
    if (!here)
      throw NotCandidate{xs + " is defined outside the body of the kernel's "
                              "statement, which may run again"};
    // Its memory must live and die in this body (an allocation here, or a parameter's
    // block at the top level): otherwise statements after the enclosing `if`, loop or
    // kernel (or later iterations) may still read it, beyond what is checked below.
    const Body* xmem_at = alloc_body(xt.mem);
    bool own_block = ix_.site.count(xt.mem) ? xmem_at == &B : &B == &p_.def.body;
    if (!own_block)
      throw NotCandidate{"the memory " + xt.mem + " of " + xs +
                         " is not allocated in the body of the kernel's statement"};
    std::set<std::string> after, mems;
    for (size_t d = p + 1; d < B.stmts.size(); ++d)
      stmt_mentions(B.stmts[d], after, mems);
    for (const Name& r : B.results)
      after.insert(r.s);
    after.insert(mems.begin(), mems.end());
    for (const std::string& n : after) {
      const auto& t = arr(n);
      if ((t && same_block(t->mem, xt.mem)) ||
          (!t && same_block(n, xt.mem) && ix_.binding.count(n) && ix_.binding.at(n)->type &&
           ix_.binding.at(n)->type->kind == Type::Kind::Mem))
        throw NotCandidate{n + " (in the memory of " + xs + ") is used after the kernel"};
    }
    // xs is used in the body only by the one indexing.
    int uses_of_xs = 0;
    for (const Stmt& st : k.body.stmts) {
      std::set<std::string> ns, ms;
      stmt_mentions(st, ns, ms);
      uses_of_xs += static_cast<int>(ns.count(xs));
    }
    for (const Name& r : k.body.results)
      uses_of_xs += r.s == xs;
    if (uses_of_xs != 1)
      throw NotCandidate{xs + " is used " + std::to_string(uses_of_xs) +
                         " times in the kernel body, not once"};
    // The result's block must hold only ys, so that it can disappear.
    if (!alloc_body(yt.mem))
      throw NotCandidate{"the memory " + yt.mem + " of " + ys + " is not an allocation of its own"};
    int in_block = 0;
    for (const auto& [n, b] : ix_.binding)
      if (b->type && b->type->ann && b->type->ann->mem.s == yt.mem) ++in_block;
    if (in_block != 1)
      throw NotCandidate{"the memory " + yt.mem + " holds other arrays than " + ys};
    // Other threads must not use the cells thread i writes.
    std::vector<Frame> f2 = fr;
    f2.back().idx = p;
    f2.push_back(Frame{&k.body, k.body.stmts.size(), Frame::Kind::Kernel, k.iter.s, k.bound});
    Solver& solver = solver_for(facts_at(f2, k.body.stmts.size()));
    set_defs(f2, k.body.stmts.size());
    Account acc1{solver, a};
    Summary Uk;
    for (const Stmt& st : k.body.stmts)
      uses(st, block_names(xt.mem), {}, Uk);
    localize(Uk, k.body);
    Acc wi{lmad_fix(yt.lay, Poly::var(k.iter.s)), "write of " + ys + " by thread " + k.iter.s};
    a.dest_mem = xt.mem;
    check({wi}, others(Uk, k.iter.s, k.bound), solver, "6.6.2 other threads", a);
    // Transform: ys lives in xs's memory; its own block goes.
    arr_cache_.clear();
    std::string old = yt.mem;
    std::function<void(Body&)> rename = [&](Body& b) {
      for (Stmt& st : b.stmts) {
        if (auto* sl = std::get_if<SLet>(&st.node)) {
          for (Binding& pb : sl->pats)
            if (pb.type && pb.type->ann && pb.type->ann->mem.s == old) pb.type->ann->mem.s = xt.mem;
          if (auto* lp = std::get_if<ELoop>(&sl->exp.node))
            for (Name& n : lp->inits)
              if (n.s == old) n.s = xt.mem;
        }
        each_body(st, [&](Body& in) { rename(in); });
      }
      for (Name& n : b.results)
        if (n.s == old) n.s = xt.mem;
    };
    rename(p_.def.body);
    a.rewritten.push_back(ys);
    if (remove_alloc_if_dead(old)) a.removed.push_back(old);
  }
};

} // namespace

Program short_circuit(const Program& p, ScReport* report, const ScOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  Program out = p;
  ScReport local;
  ScReport& rep = report ? *report : local;
  rep = ScReport{};
  if (p.lang == Lang::FunMem) {
    // The analysis names bindings globally; sibling scopes may reuse a name.
    out.def = uniquify(p.def);
    Pass(out, rep, opt).run();
    if (rep.proved_points() + rep.scalar_maps() == 0) out = p;
  }
  std::sort(rep.attempts.begin(), rep.attempts.end(), [](const ScAttempt& a, const ScAttempt& b) {
    return std::tie(a.pos.line, a.pos.col) < std::tie(b.pos.line, b.pos.col);
  });
  rep.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::string sc_report_text(const ScReport& r) {
  std::string s;
  for (const ScAttempt& a : r.attempts) {
    std::string what = a.kind == ScKind::ScalarMap ? a.dest + " built in the memory of " + a.source
                                                   : a.source + " into " + a.dest;
    s += at(a.pos) + ": " + sc_kind_name(a.kind) + ": " + what + " (@" + a.dest_mem + " -> " +
         a.projected + "): " + (a.proved ? "proved" : "refused (" + a.property + ")") + "\n";
    if (!a.creation.empty()) s += "    creation: " + a.creation + "\n";
    s += "    cost: " + std::to_string(static_cast<int>(a.ms + 0.5)) + " ms, " +
         std::to_string(a.queries) + " solver questions, " + std::to_string(a.z3_calls) +
         " sent to Z3\n";
    if (!a.proved) s += "    why: " + a.reason + "\n";
    for (const std::string& l : a.lifted)
      s += "    lifted above the creation: " + l + "\n";
    for (const ScProof& p : a.proofs)
      s += "    " + p.check + ": " + p.write + "  vs  " + p.use + ": " + p.answer + "\n";
    if (!a.rewritten.empty()) {
      s += "    now in " + a.dest_mem + ":";
      for (const std::string& n : a.rewritten)
        s += " " + n;
      s += "\n";
    }
    for (const std::string& m : a.removed)
      s += "    removed: alloc of " + m + "\n";
  }
  s += "sc: " + std::to_string(r.proved_points()) + " points short-circuited, " +
       std::to_string(r.scalar_maps()) + " in-place scalar maps, " + std::to_string(r.refused()) +
       " refused (" + std::to_string(static_cast<int>(r.ms + 0.5)) + " ms)\n";
  return s;
}

} // namespace funmem
