// fun-to-funmem (see fun_to_funmem.h).
#include "analysis/fun_to_funmem.h"

#include "analysis/ast_util.h"
#include "ir/convert.h"

#include "ir/lmad.h"
#include "ir/names.h"
#include "ir/overloaded.h"
#include "ir/parser.h"
#include "ir/typecheck.h"

#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace funmem {

namespace {

/// What the translation knows about an array name: its element type, sizes (as
/// written), memory block and layout.
struct Arr { // NOLINT(bugprone-exception-escape): moving a Poly does not throw
  ScalarType elem = ScalarType::I64;
  std::vector<SExpP> dims;
  std::string mem;
  SymLmad lay;
  // Distinct elements in distinct cells: false for a view through a slice whose stride
  // may be 0 (or an LMAD slice that may overlap itself), which an update must copy first.
  bool injective = true;
  // Aliasing roots, as the type checker assigns them: arrays with disjoint roots may be
  // live together, so they must never share cells (a view shares its source's roots; an
  // `if`'s or a loop's result has a fresh root plus those of the arrays from outside it
  // that it may be at run time).
  std::set<int> roots;
};

bool share_root(const Arr& a, const Arr& b) {
  for (int r : a.roots)
    if (b.roots.count(r)) return true;
  return false;
}

using Env = std::map<std::string, Arr>;

class Translator {
public:
  explicit Translator(const Program& p, FunToFunmemReport& r)
      : rep_(r), fresh(bound_names(p.def)) {}

  Program run(const Program& fun) {
    Program out = fun;
    out.lang = Lang::FunMem;
    Env env;
    out.def.params.clear();
    for (const Binding& b : fun.def.params) {
      if (b.type && b.type->kind == Type::Kind::Array) {
        std::string m = fresh(b.name.s + "_mem");
        out.def.params.push_back(Binding{Name{m, b.name.pos}, mem_type()});
        ++rep_.mem_params;
        Binding a = b;
        a.type->ann = MemAnn{Name{m, b.name.pos}, row_syn(b.type->dims)};
        out.def.params.push_back(a);
        env[b.name.s] =
            Arr{b.type->elem, b.type->dims, m, row_major(polys(b.type->dims)), true, root()};
      } else {
        out.def.params.push_back(b);
      }
    }
    out.def.rets.clear();
    for (const Type& t : fun.def.rets) {
      if (t.kind == Type::Kind::Array) out.def.rets.push_back(mem_type());
      out.def.rets.push_back(t);
    }
    out.def.body = body(fun.def.body, env, [&](std::vector<Stmt>& stmts, Env& e) {
      std::vector<Name> res;
      for (const Name& n : fun.def.body.results) {
        if (!e.count(n.s)) {
          res.push_back(n);
          continue;
        }
        auto [m, a] = row_major_copy(n, stmts, e);
        res.push_back(Name{m, n.pos});
        res.push_back(Name{a, n.pos});
      }
      return res;
    });
    return out;
  }

private:
  FunToFunmemReport& rep_;
  FreshNames fresh;
  std::map<std::string, Poly> defs_; // integer `let` definitions, for comparing layouts
  int next_root_ = 0;

  std::set<int> root() { return {next_root_++}; }

  /// Two layouts are the same when they agree after substituting the definitions.
  SymLmad norm(const SymLmad& l) const {
    SymLmad r = l;
    for (int k = 0; k < 16 && !defs_.empty(); ++k) {
      SymLmad next = lmad_substitute(r, defs_);
      if (next == r) break;
      r = next;
    }
    return r;
  }
  bool is_row_major(const SymLmad& l, const std::vector<SExpP>& dims) const {
    return norm(l) == norm(row_major(polys(dims)));
  }

  /// A fresh block for an array of the given sizes: `let (m : mem) = alloc prod`.
  /// `first`, when given, is the creation's own count (a replicate's, an iota's, a
  /// kernel's bound) in place of the type's first size: evaluating it fails where the
  /// source's evaluation of the count fails, at the same positions.
  std::string alloc(const std::string& base, const std::vector<SExpP>& dims, Pos pos,
                    std::vector<Stmt>& out, const std::optional<SExpP>& first = std::nullopt) {
    std::string m = fresh(base + "_mem");
    SExpP size = dims.empty() ? mk_int(1, pos) : first ? *first : dims[0];
    for (size_t k = 1; k < dims.size(); ++k)
      size = mk_bin(BinOp::Mul, size, dims[k], pos);
    SLet let{{Binding{Name{m, pos}, mem_type()}}, Exp{EAlloc{size}, pos}};
    out.push_back(Stmt{let, pos});
    ++rep_.allocations;
    return m;
  }

  /// (memory, array) names of a row-major copy of `n`, or of `n` itself when it is
  /// already row-major from offset 0 in its block.
  std::pair<std::string, std::string> row_major_copy(const Name& n, std::vector<Stmt>& out,
                                                     Env& env, bool always = false) {
    const Arr a = env.at(n.s);
    if (!always && is_row_major(a.lay, a.dims)) return {a.mem, n.s};
    std::string m = alloc(n.s + "_rm", a.dims, n.pos, out);
    std::string c = fresh(n.s + "_rm");
    Type t;
    t.kind = Type::Kind::Array;
    t.elem = a.elem;
    t.dims = a.dims;
    t.ann = MemAnn{Name{m, n.pos}, row_syn(a.dims)};
    out.push_back(Stmt{SLet{{Binding{Name{c, n.pos}, t}}, Exp{ECopy{n}, n.pos}}, n.pos});
    env[c] = Arr{a.elem, a.dims, m, row_major(polys(a.dims)), true, root()};
    ++rep_.copies;
    return {m, c};
  }

  template <class Results> Body body(const Body& b, Env env, Results results) {
    Body out;
    out.pos = b.pos;
    for (const Stmt& s : b.stmts)
      stmt(s, out.stmts, env);
    out.results = results(out.stmts, env);
    return out;
  }

  Body plain_body(const Body& b, const Env& env) {
    return body(b, env, [&](std::vector<Stmt>&, Env&) { return b.results; });
  }

  /// A body whose array results are returned as (memory, row-major array) pairs; the
  /// roots of each result go to `roots`. A result that may share cells with an earlier
  /// one (the same block, or a common root) is copied.
  Body pair_body(const Body& b, const Env& env, const std::vector<bool>& is_array,
                 std::vector<std::set<int>>& roots) {
    roots.assign(b.results.size(), {});
    return body(b, env, [&](std::vector<Stmt>& stmts, Env& e) {
      std::vector<Name> res;
      std::vector<Arr> earlier;
      for (size_t k = 0; k < b.results.size(); ++k) {
        if (!is_array[k]) {
          res.push_back(b.results[k]);
          continue;
        }
        const Arr& r = e.at(b.results[k].s);
        bool shared = false;
        for (const Arr& o : earlier)
          shared = shared || o.mem == r.mem || share_root(o, r);
        auto [m, a] = row_major_copy(b.results[k], stmts, e, shared);
        earlier.push_back(e.at(a));
        roots[k] = e.at(a).roots;
        res.push_back(Name{m, b.results[k].pos});
        res.push_back(Name{a, b.results[k].pos});
      }
      return res;
    });
  }

  /// Adds to each array of a pattern the roots from before `start` that it may be.
  static void add_outer_roots(const std::vector<Binding>& pats, Env& env,
                              const std::vector<std::set<int>>& aliases, int start) {
    for (size_t k = 0; k < pats.size() && k < aliases.size(); ++k)
      if (auto it = env.find(pats[k].name.s); it != env.end())
        for (int r : aliases[k])
          if (r < start) it->second.roots.insert(r);
  }
  /// Adds to each array of a pattern the roots it may be.
  static void add_roots(const std::vector<Binding>& pats, Env& env,
                        const std::vector<std::set<int>>& aliases) {
    add_outer_roots(pats, env, aliases, std::numeric_limits<int>::max());
  }

  /// Adds `(x_mem : mem)` before every array binding, with a row-major annotation.
  std::vector<Binding> pair_pattern(const std::vector<Binding>& pats, Env& env,
                                    std::vector<bool>& is_array) {
    std::vector<Binding> out;
    for (const Binding& p : pats) {
      bool arr = p.type && p.type->kind == Type::Kind::Array;
      is_array.push_back(arr);
      if (!arr) {
        out.push_back(p);
        continue;
      }
      std::string m = fresh(p.name.s + "_mem");
      out.push_back(Binding{Name{m, p.name.pos}, mem_type()});
      Binding a = p;
      a.type->ann = MemAnn{Name{m, p.name.pos}, row_syn(p.type->dims)};
      out.push_back(a);
      env[p.name.s] =
          Arr{p.type->elem, p.type->dims, m, row_major(polys(p.type->dims)), true, root()};
    }
    return out;
  }

  void bind_view(SLet& let, const Env& env, const std::string& src, const SymLmad& lay, Pos) {
    Binding& p = let.pats.at(0);
    const Arr& a = env.at(src);
    p.type->ann = MemAnn{Name{a.mem, p.name.pos}, explicit_syn(lay)};
  }

  /// Whether a loop's array initial value k may share cells with an earlier initial
  /// value or with a name its body mentions (the same block or a common root; the value
  /// semantics' parameter is a new array: updated in place in that block, it would change
  /// what the others read).
  static bool init_block_shared(const ELoop& x, size_t k, const Env& env) {
    const Arr& a = env.at(x.inits[k].s);
    auto shares = [&](const std::string& n) {
      auto it = env.find(n);
      return it != env.end() && (it->second.mem == a.mem || share_root(it->second, a));
    };
    for (size_t j = 0; j < k; ++j)
      if (shares(x.inits[j].s)) return true;
    std::set<std::string> names, mems;
    body_mentions(x.body, names, mems);
    for (const std::string& n : names)
      if (shares(n)) return true;
    return false;
  }

  /// Whether slicing keeps distinct elements in distinct cells: every slice's stride is
  /// a non-zero constant.
  static bool steps_nonzero(const std::vector<SymEntry>& es) {
    for (const SymEntry& e : es)
      if (e.count && (!e.stride.constant() || *e.stride.constant() == 0)) return false;
    return true;
  }
  /// Whether an LMAD is constant and nested (ConcreteLmad::nested).
  static bool constant_nested(const SymLmad& l) {
    ConcreteLmad c;
    for (const auto& [n, st] : l.dims) {
      if (!n.constant() || !st.constant()) return false;
      c.dims.emplace_back(*n.constant(), *st.constant());
    }
    return c.nested();
  }

  /// A loop: (block, array) pairs for the array parameters, initial values (copied when
  /// not row-major or when they may share cells with another) and body results; the
  /// pattern's arrays get the roots the loop's results may be.
  void loop(SLet& let, const ELoop& x, std::vector<Stmt>& out, Env& env) {
    ELoop y = x;
    Env inner = env;
    std::vector<bool> is_array;
    const int start = next_root_;
    y.params = pair_pattern(x.params, inner, is_array);
    y.inits.clear();
    std::vector<std::set<int>> init_roots(x.inits.size());
    std::vector<int> param_roots(x.inits.size(), -1);
    for (size_t k = 0; k < x.inits.size(); ++k) {
      if (!is_array[k]) {
        y.inits.push_back(x.inits[k]);
        continue;
      }
      auto [m, a] = row_major_copy(x.inits[k], out, env, init_block_shared(x, k, env));
      y.inits.push_back(Name{m, x.inits[k].pos});
      y.inits.push_back(Name{a, x.inits[k].pos});
      init_roots[k] = env.at(a).roots;
      param_roots[k] = *inner.at(x.params[k].name.s).roots.begin();
    }
    std::vector<std::set<int>> results;
    y.body = pair_body(x.body, inner, is_array, results);
    const std::vector<Binding> pats = let.pats;
    std::vector<bool> pat_array;
    let.pats = pair_pattern(let.pats, env, pat_array);
    add_roots(pats, env, loop_result_aliases(init_roots, param_roots, results, start));
    let.exp.node = y;
  }

  void stmt(const Stmt& s, std::vector<Stmt>& out, Env& env) {
    const auto* l0 = std::get_if<SLet>(&s.node);
    if (!l0) {
      out.push_back(s);
      return;
    }
    SLet let = *l0;
    const Pos pos = let.exp.pos;
    Binding* first = let.pats.empty() ? nullptr : &let.pats[0];
    bool array_result = first && first->type && first->type->kind == Type::Kind::Array;
    // A view keeps its source's roots; any other array gets a fresh one.
    auto record = [&](const std::string& mem, const SymLmad& lay, bool injective = true,
                      std::set<int> roots = {}) {
      if (roots.empty()) roots = root();
      env[first->name.s] =
          Arr{first->type->elem, first->type->dims, mem, lay, injective, std::move(roots)};
    };
    // An update lives where its source lives, with the source's layout.
    auto keep_layout = [&](const std::string& src) {
      const Arr a = env.at(src);
      bool row = is_row_major(a.lay, first->type->dims);
      first->type->ann =
          MemAnn{Name{a.mem, pos}, row ? row_syn(first->type->dims) : explicit_syn(a.lay)};
      record(a.mem, a.lay, a.injective);
    };
    // An update of a view that may hold two elements in one cell updates a row-major copy
    // (the value semantics' new array has one cell per element).
    auto distinct_cells = [&](const Name& arr) {
      if (env.at(arr.s).injective) return arr;
      return Name{row_major_copy(arr, out, env).second, arr.pos};
    };
    // `count` (a creation's own first size) and `at` (where the source checks that it is
    // not negative) make the allocation end as the source's creation does.
    auto fresh_array = [&](std::optional<SExpP> count = std::nullopt,
                           std::optional<Pos> at = std::nullopt) {
      std::string m = alloc(first->name.s, first->type->dims, at.value_or(pos), out, count);
      first->type->ann = MemAnn{Name{m, pos}, row_syn(first->type->dims)};
      record(m, row_major(polys(first->type->dims)));
    };
    std::visit(
        Overloaded{
            [&](const EScalar& x) {
              if (let.pats.size() == 1 && (!first->type || first->type->kind == Type::Kind::Scalar))
                if (auto p = to_poly(*x.e)) defs_[first->name.s] = *p;
            },
            [&](const EIndex& x) {
              if (!array_result) return;
              const Arr& a = env.at(x.arr.s);
              std::vector<SymEntry> es = sym_entries(x.entries);
              SymLmad lay = lmad_index(a.lay, es);
              const bool injective = a.injective && steps_nonzero(es);
              bind_view(let, env, x.arr.s, lay, pos);
              record(a.mem, lay, injective, a.roots);
            },
            [&](const ELmadSlice& x) {
              const Arr& a = env.at(x.arr.s);
              SymLmad inner = sym_lmad(x.lmad);
              SymLmad lay = lmad_compose(a.lay, inner);
              bind_view(let, env, x.arr.s, lay, pos);
              record(a.mem, lay, a.injective && constant_nested(inner), a.roots);
            },
            [&](const ETranspose& x) {
              const Arr& a = env.at(x.arr.s);
              SymLmad lay = lmad_transpose(a.lay);
              bind_view(let, env, x.arr.s, lay, pos);
              record(a.mem, lay, a.injective, a.roots);
            },
            [&](const EIf& x) {
              std::vector<bool> is_array;
              const int start = next_root_;
              const std::vector<Binding> pats = let.pats;
              let.pats = pair_pattern(let.pats, env, is_array);
              EIf y = x;
              std::vector<std::set<int>> then_roots, else_roots;
              y.then_body = pair_body(x.then_body, env, is_array, then_roots);
              y.else_body = pair_body(x.else_body, env, is_array, else_roots);
              add_outer_roots(pats, env, then_roots, start);
              add_outer_roots(pats, env, else_roots, start);
              let.exp.node = y;
            },
            [&](const EKernel& x) {
              // The source checks the bound where it is written.
              if (array_result) fresh_array(x.bound, x.bound->pos);
              EKernel y = x;
              y.body = plain_body(x.body, env);
              let.exp.node = y;
            },
            [&](const ELoop& x) { loop(let, x, out, env); },
            [&](const EUpdate& x) {
              EUpdate y = x;
              y.arr = distinct_cells(x.arr);
              keep_layout(y.arr.s);
              let.exp.node = y;
            },
            [&](const EUpdateLmad& x) {
              EUpdateLmad y = x;
              y.arr = distinct_cells(x.arr);
              keep_layout(y.arr.s);
              let.exp.node = y;
            },
            [&](const EConcat&) { fresh_array(); }, [&](const EIota& x) { fresh_array(x.n); },
            [&](const EReplicate& x) { fresh_array(x.n); }, [&](const ECopy&) { fresh_array(); },
            [&](const EScratch&) { fresh_array(); },
            [&](const EAlloc&) { throw Untranslatable("alloc in a FUN program"); }},
        let.exp.node);
    out.push_back(Stmt{let, s.pos});
  }
};

} // namespace

std::optional<Program> fun_to_funmem(const Program& fun, FunToFunmemReport* report,
                                     std::string* error) {
  FunToFunmemReport rep;
  try {
    Translator t(fun, rep);
    Program out = t.run(fun);
    if (report) *report = rep;
    return out;
  } catch (const Untranslatable& e) {
    if (error) *error = e.what();
  } catch (const SymbolicOverflow& e) {
    if (error) *error = std::string("symbolic overflow: ") + e.what();
  }
  return std::nullopt;
}

} // namespace funmem
