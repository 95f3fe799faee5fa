// funmem-to-imp (see to_imp.h).
#include "analysis/to_imp.h"

#include "analysis/formula.h"

#include "analysis/ast_util.h"
#include "analysis/mem_roots.h"
#include "ir/convert.h"
#include "ir/overloaded.h"
#include "ir/scalar_types.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <utility>

__extension__ typedef __int128 Wide; // NOLINT(modernize-use-using): __extension__ needs it

namespace funmem {

namespace {

using imp::Block;

struct ArrInfo { // NOLINT(bugprone-exception-escape): moving a Poly does not throw
  std::string mem;
  SymLmad lay;
  ScalarType elem = ScalarType::I64;
};

/// A memory name in scope: whether an `alloc` binds it (a block no name bound before it
/// can be), and when it was bound.
struct MemBind {
  bool alloc = false;
  int seq = 0;
};

struct Scope {
  std::map<std::string, ScalarType> scalars;
  std::map<std::string, MemBind> mems;
  std::map<std::string, ArrInfo> arrays;
};

imp::Stmt st(decltype(imp::Stmt::node) n, Pos p) {
  return imp::Stmt{std::move(n), p};
}

class ToImp {
public:
  ToImp(ToImpReport& r, std::set<std::string> used, const Def& d)
      : rep_(r), fresh(std::move(used)), roots_(d) {}

  imp::Program program(const Program& p) {
    imp::Program out;
    out.name = p.def.name;
    out.pos = p.def.pos;
    Scope sc;
    for (const Binding& b : p.def.params) {
      const Type& t = *b.type;
      if (t.kind == Type::Kind::Scalar) {
        out.params.push_back(imp::Param{b.name, false, t.elem});
        sc.scalars[b.name.s] = t.elem;
      } else if (t.kind == Type::Kind::Mem) {
        out.params.push_back(imp::Param{b.name, true, ScalarType::I64});
        sc.mems[b.name.s] = MemBind{false, seq_++};
      } else {
        sc.arrays[b.name.s] = array_info(t);
      }
    }
    out.body = body(p.def.body, sc);
    // A memory result stands for the array after it (`in (m, xs)`): IMP reads it as xs.
    // One that stands for no array is not a result of IMP's (nor of the value semantics').
    const auto& res = p.def.body.results;
    for (size_t k = 0; k < res.size(); ++k) {
      if (sc.arrays.count(res[k].s)) continue;
      std::optional<imp::ResultArray> arr;
      if (k + 1 < res.size()) {
        auto it = sc.arrays.find(res[k + 1].s);
        if (it != sc.arrays.end() && it->second.mem == res[k].s) {
          Poly count(1);
          for (const auto& d : it->second.lay.dims)
            count = count * d.first;
          arr = imp::ResultArray{res[k + 1], it->second.elem, sexp(count)};
        }
      }
      if (!arr && k < p.def.rets.size() && p.def.rets[k].kind == Type::Kind::Mem) continue;
      out.results.push_back(res[k]);
      out.result_arrays.push_back(std::move(arr));
    }
    return out;
  }

private:
  ToImpReport& rep_;
  FreshNames fresh;
  MemRoots roots_;
  int seq_ = 0; // binding order of memory names
  // The statement being translated: its loops and kernels are named by its position
  // (the CUDA kernels and their case discussions), the rest by the expression's.
  Pos loop_pos_;
  // The bounds of the kernels and loops around the statement: at least 1 in their bodies.
  std::vector<Poly> positive_;

  bool positive(const Poly& p) const {
    return std::find(positive_.begin(), positive_.end(), p) != positive_.end();
  }
  /// Translates a kernel's or loop's body, whose bound is at least 1 there.
  Block bounded_body(const Body& b, const SExp& bound, Scope& sc) {
    auto p = to_poly(bound);
    if (p) positive_.push_back(*p);
    Block out = body(b, sc);
    if (p) positive_.pop_back();
    return out;
  }

  static ArrInfo array_info(const Type& t) {
    if (!t.ann) throw Untranslatable("an array without a memory annotation");
    return ArrInfo{t.ann->mem.s, sym_lmad(t.ann->lmad), t.elem};
  }

  /// The type of a checked expression; names not bound as scalars (sizes, loop
  /// indices) are i64.
  static ScalarType infer(const SExp& e, const Scope& sc) {
    return scalar_type_of(e, [&](const std::string& name) {
      auto it = sc.scalars.find(name);
      return it == sc.scalars.end() ? ScalarType::I64 : it->second;
    });
  }

  /// Bounds assertions for the entries of an index, view or update of array `a`: the
  /// source semantics checks them against the array, IMP only against blocks, and an
  /// array may share a larger block (block merging). Conditions that hold for every
  /// value of their names are left out.
  static void check_entries(const std::vector<Entry>& entries, const ArrInfo& a, Pos pos,
                            Block& out) {
    for (size_t k = 0; k < entries.size() && k < a.lay.dims.size(); ++k) {
      const Entry& e = entries[k];
      SExpP dim = as_size(sexp(a.lay.dims[k].first));
      auto in_range = [&](const SExpP& i) {
        return mk_bin(BinOp::And, mk_bin(BinOp::Le, mk_int(0, pos), i, pos),
                      mk_bin(BinOp::Lt, i, dim, pos), pos);
      };
      SExpP cond;
      if (e.is_index()) {
        cond = in_range(e.start);
      } else {
        check_count(e.count, pos, out);
        cond = slice_inside(e.start, e.count, e.stride, dim, pos);
      }
      std::string why;
      if (auto f = formula_of(*cond, &why); f && f->free_vars().empty())
        if (auto v = f->eval({}); v && *v) continue;
      // At the entry, where the source semantics reports it.
      Pos at = e.start && e.start->pos.line > 0 ? e.start->pos : pos;
      out.push_back(st(imp::Assert{cond, "bounds"}, at));
    }
  }

  /// `assert 0 <= count size` where the count may be negative (the source semantics stops
  /// there with a size error).
  static void check_count(const SExpP& count, Pos pos, Block& out) {
    check_size(count, std::nullopt, count->pos.line > 0 ? count->pos : pos, out);
  }
  /// `assert guard || 0 <= size size` at `at`, left out where it holds for every value.
  static void check_size(const SExpP& size, const std::optional<SExpP>& guard, Pos at, Block& out) {
    SExpP cond = mk_bin(BinOp::Le, mk_int(0, at), size, at);
    std::string why;
    if (auto f = formula_of(*cond, &why); f && f->free_vars().empty())
      if (auto v = f->eval({}); v && *v) return;
    if (guard) cond = mk_bin(BinOp::Or, *guard, cond, at);
    out.push_back(st(imp::Assert{cond, "size"}, at));
  }
  /// The sizes of an array the source makes from its type (a scratch, a kernel of no
  /// thread's result) from `from` on are at least 0, unless `guard` holds.
  static void check_type_sizes(const Type& t, size_t from, const std::optional<SExpP>& guard,
                               Pos pos, Block& out) {
    for (size_t k = from; k < t.dims.size(); ++k)
      check_size(as_size(normal_form(t.dims[k])), guard, pos, out);
  }

  /// A kernel: a parallel loop storing each thread's result into its array (returned).
  ArrInfo kernel(const EKernel& x, const Type& t, Scope& sc, Pos pos, Block& out) {
    ArrInfo dst = array_info(t);
    Scope inner = sc;
    inner.scalars[x.iter.s] = ScalarType::I64;
    check_count(x.bound, pos, out);
    Block b = bounded_body(x.body, *x.bound, inner);
    SymLmad place = lmad_fix(dst.lay, Poly::var(x.iter.s));
    const Pos rp = x.body.pos.line > 0 ? x.body.pos : pos;
    store(AtomArg{x.body.results.at(0), rp}, dst.mem, place, inner, rp, b);
    out.push_back(st(imp::Loop{true, x.iter, x.bound, b}, loop_pos_));
    // A kernel of no thread has the shape of its type, [0] and the rest.
    check_type_sizes(t, 1, mk_bin(BinOp::Lt, mk_int(0, pos), x.bound, pos), pos, out);
    ++rep_.kernels;
    return dst;
  }

  /// The source semantics' checks of an LMAD slice or update of a 1-d array of `n`
  /// elements (interp/machine.cpp, apply_lmad): every count non-negative (size), then,
  /// unless a count is 0, every element inside [0, n) (bounds, at the LMAD). The extent
  /// is walked dimension by dimension in temporaries, each step against the room left
  /// above (positive strides) or below (negative strides) the offset, so that no
  /// operation overflows: `c - 1 <= room / s`, then `room <- room - (c - 1) * s`.
  void check_lmad(const LmadSyn& l0, const SExpP& n, Pos pos, Block& out) {
    const LmadSyn l = lmad_as_evaluated(l0);
    if (l.form == LmadSyn::Form::Explicit)
      for (const auto& dim : l.dims)
        check_count(dim.first, pos, out);
    const Pos at = l.pos.line > 0 ? l.pos : pos;
    auto k = [&](int64_t v) { return mk_int(v, at); };
    auto bin = [&](BinOp op, SExpP a, SExpP b) {
      return mk_bin(op, std::move(a), std::move(b), at);
    };
    auto temp = [&](const std::string& base, SExpP value, Block& b) {
      const std::string t = fresh(base);
      b.push_back(st(imp::Decl{Name{t, at}, false, ScalarType::I64}, at));
      b.push_back(st(imp::Assign{Name{t, at}, std::move(value)}, at));
      return t;
    };
    auto inside = [&](SExpP cond, Block& b) {
      b.push_back(st(imp::Assert{std::move(cond), "bounds"}, at));
    };
    if (l.form == LmadSyn::Form::Explicit && l.dims.size() == 1) {
      // One dimension: a slice's check, flat (the lowering then knows it as a fact on the
      // host, where a race check of the kernel after it may need it).
      SExpP cond = slice_inside(l.offset, l.dims[0].first, l.dims[0].second, n, at);
      out.push_back(st(imp::Assert{std::move(cond), "bounds"}, at));
      return;
    }
    Block b;
    SExpP nonempty;
    if (l.form == LmadSyn::Form::Explicit) {
      for (const auto& [count, stride] : l.dims) {
        SExpP pos_count = bin(BinOp::Lt, k(0), count);
        nonempty = nonempty ? bin(BinOp::And, nonempty, pos_count) : pos_count;
      }
      const std::string o = temp("lo", l.offset, b);
      inside(bin(BinOp::And, bin(BinOp::Le, k(0), mk_var(o, at)), bin(BinOp::Lt, mk_var(o, at), n)),
             b);
      const std::string above =
          temp("room", bin(BinOp::Sub, bin(BinOp::Sub, n, k(1)), mk_var(o, at)), b);
      const std::string below = temp("room", mk_var(o, at), b);
      for (const auto& [count, stride] : l.dims) {
        const std::string s = temp("st", stride, b);
        const std::string c1 = temp("c", bin(BinOp::Sub, count, k(1)), b);
        SExpP sv = mk_var(s, at), cv = mk_var(c1, at);
        Block up, down;
        inside(bin(BinOp::Le, cv, bin(BinOp::Div, mk_var(above, at), sv)), up);
        up.push_back(st(imp::Assign{Name{above, at},
                                    bin(BinOp::Sub, mk_var(above, at), bin(BinOp::Mul, cv, sv))},
                        at));
        inside(bin(BinOp::Le, cv, bin(BinOp::Sub, k(0), bin(BinOp::Div, mk_var(below, at), sv))),
               down);
        down.push_back(st(imp::Assign{Name{below, at},
                                      bin(BinOp::Add, mk_var(below, at), bin(BinOp::Mul, cv, sv))},
                          at));
        Block neg;
        neg.push_back(st(imp::If{bin(BinOp::Lt, sv, k(0)), std::move(down), {}}, at));
        b.push_back(st(imp::If{bin(BinOp::Lt, k(0), sv), std::move(up), std::move(neg)}, at));
      }
    } else {
      // A dense layout of the shape: the extents evaluated in order, each non-negative
      // (size, at the LMAD, as the semantics checks them after evaluating all); then,
      // unless one is 0, elements 0 .. product - 1, inside when the product is at most n,
      // i.e. each extent at most what n leaves after the ones before it.
      std::vector<std::string> ext;
      for (const SExpP& a : l.args)
        ext.push_back(temp("ext", a, out));
      for (const std::string& e : ext)
        out.push_back(st(imp::Assert{bin(BinOp::Le, k(0), mk_var(e, at)), "size"}, at));
      const std::string room = temp("room", n, b);
      for (const std::string& e : ext) {
        SExpP pos_count = bin(BinOp::Lt, k(0), mk_var(e, at));
        nonempty = nonempty ? bin(BinOp::And, nonempty, pos_count) : pos_count;
        inside(bin(BinOp::Le, mk_var(e, at), mk_var(room, at)), b);
        b.push_back(
            st(imp::Assign{Name{room, at}, bin(BinOp::Div, mk_var(room, at), mk_var(e, at))}, at));
      }
    }
    if (!nonempty) return;
    out.push_back(st(imp::If{std::move(nonempty), std::move(b), {}}, at));
  }

  static SExpP offset(const SymLmad& l, const std::vector<Poly>& idx) {
    return sexp(lmad_apply(l, idx));
  }

  /// `mem[place(idx)] <- value`, remembering the index function it came from.
  imp::Stmt write(const std::string& mem, const SymLmad& place, const std::vector<Poly>& idx,
                  SExpP value, Pos pos, const std::string& what) {
    WriteOrigin o{what, pos, mem, place, {}};
    for (const Poly& i : idx)
      o.idx.push_back(i.to_string());
    imp::Write w{Name{mem, pos}, offset(place, idx), std::move(value)};
    w.origin = static_cast<int>(rep_.origins.size());
    rep_.origins.push_back(std::move(o));
    return st(std::move(w), pos);
  }

  /// COPY (proc. 4.7): a nest of kernels copying `src` into the place `dst` of block `dmem`;
  /// of sequential loops when `dst` may send two elements to one cell (the last written
  /// wins, in index order, as in the value semantics, instead of a race).
  /// The value semantics reads the whole source before it writes (memmove): where the
  /// source's cells may be among the destination's, it goes through a new block.
  void copy(const ArrInfo& src, const std::string& dmem, const SymLmad& dst, const Scope& sc,
            Pos pos, Block& out, bool parallel = true) {
    if (src.lay.dims.size() != dst.dims.size())
      throw Untranslatable("a copy between arrays of different ranks");
    if (src.mem == dmem && src.lay == dst) {
      ++rep_.elided;
      return;
    }
    if (may_overlap(src, dmem, dst, sc)) {
      const ArrInfo tmp = temporary(src, pos, out);
      copy_cells(src, tmp.mem, tmp.lay, pos, out, true);
      copy_cells(tmp, dmem, dst, pos, out, parallel);
      return;
    }
    copy_cells(src, dmem, dst, pos, out, parallel);
  }

  /// Whether the cells of `src` may be among those of the place `dst` of block `dmem`.
  bool may_overlap(const ArrInfo& src, const std::string& dmem, const SymLmad& dst,
                   const Scope& sc) const {
    if (src.mem != dmem) {
      if (!roots_.may_alias(src.mem, dmem)) return false;
      // A block allocated after the other name was bound is a new block.
      auto a = sc.mems.find(src.mem), b = sc.mems.find(dmem);
      if (a != sc.mems.end() && b != sc.mems.end() &&
          ((a->second.alloc && a->second.seq > b->second.seq) ||
           (b->second.alloc && b->second.seq > a->second.seq)))
        return false;
      return true;
    }
    auto p = points(src.lay), q = points(dst);
    if (!p || !q) return true;
    if (p->empty() || q->empty()) return false;
    for (const Wide& x : *q)
      if (p->count(x)) return true;
    return false;
  }

  /// A new row-major block for the elements of `src`.
  /// replicate: every row a copy of the value (in index order in the heap semantics, so
  /// rows that share cells are written by sequential loops). A value that shares the
  /// destination's cells is copied to a new block first, when there is a row (with none
  /// the heap semantics reads nothing).
  void replicate(const EReplicate& x, const ArrInfo& d, const Scope& sc, Pos pos, Block& out) {
    SExpP nonneg = mk_bin(BinOp::Le, mk_int(0, pos), x.n, pos);
    std::string why;
    auto f = formula_of(*nonneg, &why);
    if (!(f && f->free_vars().empty() && f->eval({}).value_or(false)))
      out.push_back(st(imp::Assert{nonneg, "size"}, pos));
    const auto* vn = std::get_if<Name>(&x.value.v);
    auto va = vn ? sc.arrays.find(vn->s) : sc.arrays.end();
    Scope with = sc;
    AtomArg value = x.value;
    if (va != sc.arrays.end() && may_overlap(va->second, d.mem, d.lay, sc)) {
      Block first;
      const ArrInfo tmp = temporary(va->second, pos, out, first);
      copy_cells(va->second, tmp.mem, tmp.lay, pos, first, true);
      out.push_back(
          st(imp::If{mk_bin(BinOp::Lt, mk_int(0, pos), x.n, pos), std::move(first), {}}, pos));
      value = AtomArg{Name{fresh("tmp"), pos}, pos};
      with.arrays[std::get<Name>(value.v).s] = tmp;
      with.mems[tmp.mem] = MemBind{true, seq_++};
    }
    auto rows = [&](bool par) {
      const std::string i = fresh("r0");
      Block b;
      store(value, d.mem, lmad_fix(d.lay, Poly::var(i)), with, pos, b, par);
      if (par) ++rep_.kernels;
      return Block{st(imp::Loop{par, Name{i, pos}, x.n, b}, loop_pos_)};
    };
    // Rows that may share cells are written in order only where the layout is constant
    // (a symbolic one not shown injective stays a kernel: docs/passes.md, to-imp, Limits).
    Block b = rows(injective(d.lay).value_or(true));
    if (SExpP ne = inner_dims_nonempty(d.lay, pos)) b = {st(imp::If{ne, std::move(b), {}}, pos)};
    out.insert(out.end(), b.begin(), b.end());
  }

  ArrInfo temporary(const ArrInfo& src, Pos pos, Block& out) {
    return temporary(src, pos, out, out);
  }
  /// The declaration goes to `decl`, the allocation to `alloc`.
  ArrInfo temporary(const ArrInfo& src, Pos pos, Block& decl, Block& alloc) {
    std::vector<Poly> shape;
    Poly size = 1;
    for (const auto& d : src.lay.dims) {
      shape.push_back(d.first);
      size = size * d.first;
    }
    ArrInfo t{fresh("tmp_mem"), row_major(shape), src.elem};
    decl.push_back(st(imp::Decl{Name{t.mem, pos}, true, ScalarType::I64}, pos));
    alloc.push_back(st(imp::Alloc{Name{t.mem, pos}, sexp(size)}, pos));
    ++rep_.temporaries;
    return t;
  }

  /// The cells of an LMAD of constant counts and strides, up to 2^16 points; nullopt for
  /// a symbolic or a larger one.
  static std::optional<std::set<Wide>> points(const SymLmad& l) {
    auto off = l.offset.constant();
    if (!off) return std::nullopt;
    std::vector<std::pair<int64_t, int64_t>> dims;
    int64_t n = 1;
    for (const auto& [c, s] : l.dims) {
      auto cn = c.constant(), cs = s.constant();
      if (!cn || !cs) return std::nullopt;
      if (*cn <= 0) return std::set<Wide>{};
      if (*cn > (int64_t{1} << 16) || (n *= *cn) > (int64_t{1} << 16)) return std::nullopt;
      dims.emplace_back(*cn, *cs);
    }
    std::set<Wide> out;
    std::vector<int64_t> idx(dims.size(), 0);
    for (int64_t t = 0; t < n; ++t) {
      Wide a = *off;
      for (size_t k = 0; k < dims.size(); ++k)
        a += static_cast<Wide>(idx[k]) * dims[k].second;
      out.insert(a);
      for (size_t k = dims.size(); k-- > 0;) {
        if (++idx[k] < dims[k].first) break;
        idx[k] = 0;
      }
    }
    return out;
  }

  /// A nest of kernels (or sequential loops) copying `src` cell by cell into `dst`.
  void copy_cells(const ArrInfo& src, const std::string& dmem, const SymLmad& dst, Pos pos,
                  Block& out, bool parallel) {
    ++rep_.copies;
    nest("c", dst, pos, parallel, out, [&](const std::vector<Poly>& idx, Block& in) {
      std::string t = fresh("cv");
      in.push_back(st(imp::Decl{Name{t, pos}, false, src.elem}, pos));
      in.push_back(st(imp::Read{Name{t, pos}, Name{src.mem, pos}, offset(src.lay, idx)}, pos));
      in.push_back(write(dmem, dst, idx, mk_var(t, pos), pos, "COPY of " + src.mem));
    });
  }

  /// A nest of loops over the points of `dst` around `body_of`'s statements: kernels
  /// where `parallel` and `dst` sends distinct points to distinct cells; sequential loops
  /// (in index order: the last write wins, as in the heap semantics) where it may not;
  /// both under an `if` on `lmad_injective` where only the run knows.
  void nest(const std::string& base, const SymLmad& dst, Pos pos, bool parallel, Block& out,
            const std::function<void(const std::vector<Poly>&, Block&)>& body_of) {
    auto build = [&](bool par) {
      std::vector<Poly> idx;
      std::vector<std::string> names;
      for (size_t k = 0; k < dst.dims.size(); ++k) {
        names.push_back(fresh(base + std::to_string(k)));
        idx.push_back(Poly::var(names.back()));
      }
      Block inner;
      body_of(idx, inner);
      for (size_t k = dst.dims.size(); k-- > 0;) {
        inner = {st(imp::Loop{par, Name{names[k], pos}, as_size(sexp(dst.dims[k].first)), inner},
                    loop_pos_)};
        if (par) ++rep_.kernels;
      }
      return inner;
    };
    // A symbolic layout not shown injective stays a kernel nest (docs/passes.md, to-imp,
    // Limits).
    Block b = build(parallel && injective(dst).value_or(true));
    if (SExpP ne = inner_dims_nonempty(dst, pos)) b = {st(imp::If{ne, std::move(b), {}}, pos)};
    out.insert(out.end(), b.begin(), b.end());
  }

  /// Whether an LMAD sends distinct points to distinct cells: decided for constant ones
  /// (by enumeration, up to 2^16 points) and for symbolic ones whose dimensions nest
  /// (ordered by span, each stride is +-the span of those inside it, or a constant at
  /// least that span: row-major, transposed, sliced with a constant step); nullopt
  /// otherwise.
  std::optional<bool> injective(const SymLmad& l) const {
    if (auto o = overlaps_itself(l)) return !*o;
    try {
      std::vector<std::pair<Poly, Poly>> left;
      for (const auto& d : l.dims)
        if (auto c = d.first.constant(); !c || *c > 1) left.push_back(d);
      // Each dimension chosen steps over the width of the points of those chosen before
      // (at most `span` cells), so that the points stay distinct: the new width is at
      // most count * step.
      Poly span = 1;
      while (!left.empty()) {
        bool found = false;
        for (size_t k = 0; k < left.size() && !found; ++k) {
          const auto& [c, st] = left[k];
          std::optional<Poly> step;
          auto cs = st.constant(), sp = span.constant();
          if (st == span || st == Poly(0) - span)
            step = span;
          else if (span == Poly(1) && (positive(st) || positive(Poly(0) - st)))
            step = st; // at least 1 (an enclosing kernel's or loop's bound)
          else if (cs && sp && *sp > 0 && *cs != std::numeric_limits<int64_t>::min() &&
                   (*cs < 0 ? -*cs : *cs) >= *sp)
            step = Poly(*cs < 0 ? -*cs : *cs);
          if (!step) continue;
          span = c * (positive(Poly(0) - *step) ? Poly(0) - *step : *step);
          left.erase(left.begin() + static_cast<long>(k));
          found = true;
        }
        if (!found) return std::nullopt;
      }
      return true;
    } catch (const SymbolicOverflow&) {
      return std::nullopt;
    }
  }

  /// Whether every slice entry's stride is a non-zero constant (a stride that may be 0
  /// puts several elements in one cell).
  static bool strides_nonzero(const std::vector<Entry>& entries) {
    for (const Entry& e : entries)
      if (e.count && e.stride) {
        auto k = to_poly(*e.stride);
        auto c = k ? k->constant() : std::nullopt;
        if (!c || *c == 0) return false;
      }
    return true;
  }

  /// Whether an LMAD of constant counts and strides sends two points to one place, found
  /// by enumeration up to 2^16 points; nullopt for a symbolic or a larger one.
  static std::optional<bool> overlaps_itself(const SymLmad& l) {
    SymLmad at0 = l; // the offset does not matter
    at0.offset = 0;
    auto cells = points(at0);
    if (!cells) return std::nullopt;
    int64_t n = 1;
    for (const auto& d : l.dims)
      n *= std::max<int64_t>(*d.first.constant(), 0);
    return static_cast<int64_t>(cells->size()) < n;
  }

  /// An LMAD update: its checks, then the copy of the value into the place. Where two
  /// points of the place may share a cell (the last element written wins, as in the
  /// value semantics), the copy is parallel only where the run shows they do not.
  void update_lmad(const EUpdateLmad& x, const Scope& sc, Pos pos, Block& out) {
    const ArrInfo a = sc.arrays.at(x.arr.s);
    check_lmad(x.lmad, as_size(sexp(a.lay.dims.at(0).first)), pos, out);
    const SymLmad inner = sym_lmad(x.lmad);
    const SymLmad place = lmad_compose(a.lay, inner);
    // The heap semantics writes at the value.
    const Pos vp = x.value.pos.line > 0 ? x.value.pos : pos;
    const AtomArg v{x.value, vp};
    auto overlaps = overlaps_itself(inner);
    if (overlaps || x.lmad.form != LmadSyn::Form::Explicit) {
      store(v, a.mem, place, sc, vp, out, !overlaps.value_or(false));
      return;
    }
    Block par, seq;
    store(v, a.mem, place, sc, vp, par, true);
    const int copies = rep_.copies, elided = rep_.elided; // one copy, two versions
    store(v, a.mem, place, sc, vp, seq, false);
    rep_.copies = copies;
    rep_.elided = elided;
    const Pos at = x.lmad.pos.line > 0 ? x.lmad.pos : pos;
    out.push_back(st(
        imp::If{lmad_injective(lmad_as_evaluated(x.lmad).dims, at), std::move(par), std::move(seq)},
        pos));
  }

  /// Stores a value (a scalar name / literal, or an array) into the place `dst`.
  void store(const AtomArg& v, const std::string& dmem, const SymLmad& dst, const Scope& sc,
             Pos pos, Block& out, bool parallel = true) {
    if (const auto* lit = std::get_if<Lit>(&v.v)) {
      out.push_back(write(dmem, dst, {}, mk_lit(*lit, pos), pos, "a literal"));
      return;
    }
    const Name& n = std::get<Name>(v.v);
    auto it = sc.arrays.find(n.s);
    if (it == sc.arrays.end()) {
      out.push_back(write(dmem, dst, {}, mk_var(n.s, pos), pos, "'" + n.s + "'"));
      return;
    }
    copy(it->second, dmem, dst, sc, pos, out, parallel);
  }

  /// A kernel writing f(i, ...) into every element of `dst` (iota, replicate).
  void fill(const SymLmad& dst, Pos pos, Block& out,
            const std::function<void(const std::vector<Poly>&, Block&)>& body_of) {
    nest("f", dst, pos, true, out, body_of);
  }

  Block body(const Body& b, Scope& sc) {
    Block out;
    for (const Stmt& s : b.stmts)
      stmt(s, sc, out);
    return out;
  }

  /// Declares the scalar and memory names of a pattern; records its arrays.
  void declare(const std::vector<Binding>& pats, Scope& sc, Block& out, Pos pos) {
    for (const Binding& p : pats) {
      if (!p.type) continue;
      if (p.type->kind == Type::Kind::Array) {
        sc.arrays[p.name.s] = array_info(*p.type);
      } else if (p.type->kind == Type::Kind::Mem) {
        out.push_back(st(imp::Decl{p.name, true, ScalarType::I64}, pos));
        sc.mems[p.name.s] = MemBind{false, seq_++};
      } else {
        out.push_back(st(imp::Decl{p.name, false, p.type->elem}, pos));
        sc.scalars[p.name.s] = p.type->elem;
      }
    }
  }

  /// Assigns a body's scalar and memory results to the pattern's names.
  void assign_results(const std::vector<Binding>& pats, const std::vector<Name>& res, Pos pos,
                      Block& out) {
    for (size_t k = 0; k < pats.size(); ++k) {
      if (pats[k].type && pats[k].type->kind == Type::Kind::Array) continue;
      out.push_back(st(imp::Assign{pats[k].name, mk_var(res.at(k).s, pos)}, pos));
    }
  }

  /// A sequential loop: its scalar and memory parameters become variables, assigned their
  /// next values at the end of the body through temporaries (the results may mention
  /// the parameters).
  void loop(const SLet& let, const ELoop& x, Scope& sc, Block& out, Pos pos) {
    const std::vector<Binding>& pats = let.pats;
    std::vector<Binding> params;
    for (size_t k = 0; k < x.params.size(); ++k) {
      const Binding& prm = x.params[k];
      if (prm.type && prm.type->kind == Type::Kind::Array) {
        sc.arrays[prm.name.s] = array_info(*prm.type);
        continue;
      }
      declare({prm}, sc, out, pos);
      out.push_back(st(imp::Assign{prm.name, mk_var(x.inits.at(k).s, pos)}, pos));
    }
    Scope inner = sc;
    inner.scalars[x.iter.s] = ScalarType::I64;
    Block b = bounded_body(x.body, *x.bound, inner);
    std::vector<std::pair<Name, std::string>> temps;
    for (size_t k = 0; k < x.params.size(); ++k) {
      const Binding& prm = x.params[k];
      if (prm.type && prm.type->kind == Type::Kind::Array) continue;
      std::string t = fresh(prm.name.s + "_next");
      bool mem = prm.type && prm.type->kind == Type::Kind::Mem;
      b.push_back(st(imp::Decl{Name{t, pos}, mem, mem ? ScalarType::I64 : prm.type->elem}, pos));
      b.push_back(st(imp::Assign{Name{t, pos}, mk_var(x.body.results.at(k).s, pos)}, pos));
      temps.emplace_back(prm.name, t);
    }
    for (auto& [prm, t] : temps)
      b.push_back(st(imp::Assign{prm, mk_var(t, pos)}, pos));
    out.push_back(st(imp::Loop{false, x.iter, x.bound, b}, loop_pos_));
    declare(pats, sc, out, pos);
    std::vector<Name> params_as_results;
    for (const Binding& prm : x.params)
      params_as_results.push_back(prm.name);
    assign_results(pats, params_as_results, pos, out);
  }

  void stmt(const Stmt& s, Scope& sc, Block& out) {
    const auto* l = std::get_if<SLet>(&s.node);
    // At the expression, where the heap semantics reports its errors.
    const Pos pos = l && l->exp.pos.line > 0 ? l->exp.pos : s.pos;
    const Pos outer = std::exchange(loop_pos_, s.pos); // restored below
    if (!l) {
      // assume: a check that ends the run as the source's does (and a fact the CUDA
      // translation validation uses at later launches).
      const SAssume& a = std::get<SAssume>(s.node);
      out.push_back(st(imp::Assert{a.cond, a.kind}, pos));
      return;
    }
    const Binding& p0 = l->pats.at(0);
    auto scalar_type = [&](ScalarType dflt) {
      return p0.type && p0.type->kind == Type::Kind::Scalar ? p0.type->elem : dflt;
    };
    std::visit(
        Overloaded{
            [&](const EScalar& x) {
              ScalarType t = scalar_type(infer(*x.e, sc));
              out.push_back(st(imp::Decl{p0.name, false, t}, pos));
              out.push_back(st(imp::Assign{p0.name, x.e}, pos));
              sc.scalars[p0.name.s] = t;
            },
            [&](const EIndex& x) {
              const ArrInfo& a = sc.arrays.at(x.arr.s);
              check_entries(x.entries, a, pos, out);
              bool full = x.entries.size() == a.lay.dims.size();
              for (const Entry& e : x.entries)
                full = full && e.is_index();
              if (!full) {
                sc.arrays[p0.name.s] = array_info(*p0.type);
                return;
              }
              std::vector<Poly> idx;
              for (const Entry& e : x.entries)
                idx.push_back(poly(*e.start));
              out.push_back(st(imp::Decl{p0.name, false, a.elem}, pos));
              out.push_back(st(imp::Read{p0.name, Name{a.mem, pos}, offset(a.lay, idx)}, pos));
              sc.scalars[p0.name.s] = a.elem;
            },
            [&](const ELmadSlice& x) {
              check_lmad(x.lmad, as_size(sexp(sc.arrays.at(x.arr.s).lay.dims.at(0).first)), pos,
                         out);
              sc.arrays[p0.name.s] = array_info(*p0.type);
            },
            [&](const ETranspose&) { sc.arrays[p0.name.s] = array_info(*p0.type); },
            [&](const EAlloc& x) {
              out.push_back(st(imp::Decl{p0.name, true, ScalarType::I64}, pos));
              out.push_back(st(imp::Alloc{p0.name, x.size}, pos));
              sc.mems[p0.name.s] = MemBind{true, seq_++};
            },
            [&](const EIf& x) {
              declare(l->pats, sc, out, pos);
              Scope t = sc, f = sc;
              Block tb = body(x.then_body, t), fb = body(x.else_body, f);
              assign_results(l->pats, x.then_body.results, pos, tb);
              assign_results(l->pats, x.else_body.results, pos, fb);
              out.push_back(st(imp::If{x.cond, tb, fb}, pos));
            },
            [&](const ELoop& x) { loop(*l, x, sc, out, pos); },
            [&](const EKernel& x) { sc.arrays[p0.name.s] = kernel(x, *p0.type, sc, pos, out); },
            [&](const EUpdate& x) {
              const ArrInfo a = sc.arrays.at(x.arr.s);
              check_entries(x.entries, a, pos, out);
              // The heap semantics writes at the value.
              const Pos vp = x.value.pos.line > 0 ? x.value.pos : pos;
              store(x.value, a.mem, lmad_index(a.lay, sym_entries(x.entries)), sc, vp, out,
                    strides_nonzero(x.entries));
              sc.arrays[p0.name.s] = array_info(*p0.type);
            },
            [&](const EUpdateLmad& x) {
              update_lmad(x, sc, pos, out);
              sc.arrays[p0.name.s] = array_info(*p0.type);
            },
            [&](const EConcat& x) {
              ArrInfo d = array_info(*p0.type);
              const ArrInfo &a = sc.arrays.at(x.a.s), &b = sc.arrays.at(x.b.s);
              Poly na = a.lay.dims.at(0).first;
              SymLmad top = d.lay, bottom = d.lay;
              top.dims.at(0).first = na;
              bottom.offset = bottom.offset + na * d.lay.dims.at(0).second;
              bottom.dims.at(0).first = b.lay.dims.at(0).first;
              copy(a, d.mem, top, sc, pos, out);
              copy(b, d.mem, bottom, sc, pos, out);
              sc.arrays[p0.name.s] = d;
            },
            [&](const EIota&) {
              ArrInfo d = array_info(*p0.type);
              fill(d.lay, pos, out, [&](const std::vector<Poly>& idx, Block& in) {
                in.push_back(write(d.mem, d.lay, idx, sexp(idx[0]), pos, "iota"));
              });
              sc.arrays[p0.name.s] = d;
            },
            [&](const EReplicate& x) {
              replicate(x, array_info(*p0.type), sc, pos, out);
              sc.arrays[p0.name.s] = array_info(*p0.type);
            },
            [&](const ECopy& x) {
              ArrInfo d = array_info(*p0.type);
              copy(sc.arrays.at(x.arr.s), d.mem, d.lay, sc, pos, out);
              sc.arrays[p0.name.s] = d;
            },
            [&](const EScratch&) {
              check_type_sizes(*p0.type, 0, std::nullopt, pos, out);
              sc.arrays[p0.name.s] = array_info(*p0.type);
            }},
        l->exp.node);
    loop_pos_ = outer;
  }
};

} // namespace

std::optional<imp::Program> funmem_to_imp(const Program& p, ToImpReport* report,
                                          std::string* error) {
  if (p.lang != Lang::FunMem) {
    if (error) *error = "to-imp needs a FUNMEM program";
    return std::nullopt;
  }
  ToImpReport rep;
  try {
    // A block passed through a loop unchanged is one block, not a variable.
    Program q = p;
    q.def = drop_invariant_mem_params(p.def);
    ToImp t(rep, bound_names(q.def), q.def);
    imp::Program out = t.program(q);
    if (report) *report = rep;
    return out;
  } catch (const Untranslatable& e) {
    if (error) *error = e.what();
  } catch (const std::out_of_range&) {
    if (error) *error = "a name without a known layout";
  } catch (const SymbolicOverflow& e) {
    if (error) *error = std::string("symbolic overflow: ") + e.what();
  }
  return std::nullopt;
}

} // namespace funmem
