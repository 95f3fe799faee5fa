// Shared rewrites of the passes (see ast_util.h).
#include "analysis/ast_util.h"

#include "ir/convert.h"
#include "ir/overloaded.h"
#include "ir/printer.h"

#include <map>

namespace funmem {

std::vector<SymEntry> sym_entries(const std::vector<Entry>& es) {
  std::vector<SymEntry> out;
  for (const Entry& e : es) {
    SymEntry se;
    se.start = poly(*e.start);
    if (e.count) se.count = poly(*e.count);
    if (e.stride) se.stride = poly(*e.stride);
    out.push_back(se);
  }
  return out;
}

namespace {

/// Builds scalar expressions at one position.
struct Builder {
  Pos pos;
  SExpP bin(BinOp op, SExpP a, SExpP b) const {
    return mk_bin(op, std::move(a), std::move(b), pos);
  }
  template <class... A> SExpP call(Fn f, A... a) const {
    std::vector<SExpP> args;
    (args.push_back(std::move(a)), ...);
    return SExp{SCall{f, std::move(args)}, pos};
  }
};

} // namespace

SExpP slice_inside(const SExpP& start, const SExpP& count, const SExpP& stride, const SExpP& dim,
                   Pos pos) {
  const Builder e{pos};
  auto bin = [&](BinOp op, SExpP a, SExpP b) { return e.bin(op, std::move(a), std::move(b)); };
  auto call = [&](Fn f, auto... a) { return e.call(f, std::move(a)...); };
  auto k = [&](int64_t v) { return mk_int(v, pos); };
  auto within = bin(BinOp::And, bin(BinOp::Le, k(0), start), bin(BinOp::Lt, start, dim));
  SExpP st = stride ? stride : k(1);
  // With 0 <= start < dim (checked first: && stops there): dim - 1 - max(start, 0) and
  // max(start, 0) / min(stride, -1) cannot overflow.
  SExpP steps = bin(BinOp::Sub, call(Fn::Max, count, k(1)), k(1));
  SExpP s0 = call(Fn::Max, start, k(0));
  SExpP up =
      bin(BinOp::Div, bin(BinOp::Sub, bin(BinOp::Sub, dim, k(1)), s0), call(Fn::Max, st, k(1)));
  SExpP down = bin(BinOp::Sub, k(0), bin(BinOp::Div, s0, call(Fn::Min, st, k(-1))));
  SExpP last_in =
      bin(BinOp::Or, bin(BinOp::Eq, st, k(0)),
          bin(BinOp::Or, bin(BinOp::And, bin(BinOp::Lt, k(0), st), bin(BinOp::Le, steps, up)),
              bin(BinOp::And, bin(BinOp::Lt, st, k(0)), bin(BinOp::Le, steps, down))));
  return bin(BinOp::Or, bin(BinOp::Le, count, k(0)), bin(BinOp::And, std::move(within), last_in));
}

std::optional<SliceInsideParts> slice_inside_parts(const SExp& cond) {
  // count <= 0 || ((0 <= start && start < dim) && (stride == 0 || ...)): the operands are
  // read off that shape, and the condition slice_inside builds from them must print as
  // `cond` does.
  auto bin = [](const SExp& e, BinOp op) -> const SBinary* {
    const auto* b = std::get_if<SBinary>(&e.node);
    return b && b->op == op ? b : nullptr;
  };
  const SBinary* top = bin(cond, BinOp::Or);
  if (!top) return std::nullopt;
  const SBinary* empty = bin(*top->a, BinOp::Le);
  const SBinary* rest = bin(*top->b, BinOp::And);
  if (!empty || !rest) return std::nullopt;
  const SBinary* within = bin(*rest->a, BinOp::And);
  const SBinary* last_in = bin(*rest->b, BinOp::Or);
  if (!within || !last_in) return std::nullopt;
  const SBinary* lo = bin(*within->a, BinOp::Le);
  const SBinary* hi = bin(*within->b, BinOp::Lt);
  const SBinary* zero = bin(*last_in->a, BinOp::Eq);
  if (!lo || !hi || !zero) return std::nullopt;
  SliceInsideParts parts{lo->b, empty->a, zero->a, hi->b};
  if (print_sexp(*slice_inside(parts.start, parts.count, parts.stride, parts.dim, cond.pos)) !=
      print_sexp(cond))
    return std::nullopt;
  return parts;
}

SExpP lmad_injective(const std::vector<std::pair<SExpP, SExpP>>& dims, Pos pos) {
  const Builder e{pos};
  auto bin = [&](BinOp op, SExpP a, SExpP b) { return e.bin(op, std::move(a), std::move(b)); };
  auto call = [&](Fn f, auto... a) { return e.call(f, std::move(a)...); };
  auto k = [&](int64_t v) { return mk_int(v, pos); };
  const int64_t big = int64_t{1} << 28;
  auto any = [&](SExpP a, SExpP b) { return a ? bin(BinOp::Or, std::move(a), std::move(b)) : b; };
  auto all = [&](SExpP a, SExpP b) { return a ? bin(BinOp::And, std::move(a), std::move(b)) : b; };
  SExpP empty, small;
  // Clamped to [0, 2^28] and [0, 2^28]: a term (c - 1) * |s| stays below 2^56.
  std::vector<SExpP> count, step;
  for (const auto& [c, s] : dims) {
    empty = any(std::move(empty), bin(BinOp::Le, c, k(0)));
    small = all(std::move(small),
                bin(BinOp::And, bin(BinOp::Lt, c, k(big)),
                    bin(BinOp::And, bin(BinOp::Lt, k(-big), s), bin(BinOp::Lt, s, k(big)))));
    count.push_back(call(Fn::Min, call(Fn::Max, c, k(1)), k(big)));
    step.push_back(call(Fn::Abs, call(Fn::Min, call(Fn::Max, s, k(-big)), k(big))));
  }
  if (dims.empty()) return bin(BinOp::Le, k(0), k(0)); // one point
  // Each dimension of more than one point steps beyond the span of those after it.
  auto nested = [&](bool reverse) {
    SExpP out;
    const size_t d = dims.size();
    for (size_t i = 0; i < d; ++i) {
      const size_t kk = reverse ? d - 1 - i : i;
      SExpP span = k(0);
      for (size_t j = i + 1; j < d; ++j) {
        const size_t jj = reverse ? d - 1 - j : j;
        span = bin(BinOp::Add, span, bin(BinOp::Mul, bin(BinOp::Sub, count[jj], k(1)), step[jj]));
      }
      out = all(std::move(out),
                bin(BinOp::Or, bin(BinOp::Le, count[kk], k(1)), bin(BinOp::Lt, span, step[kk])));
    }
    return out;
  };
  SExpP order = dims.size() == 1 ? nested(false) : bin(BinOp::Or, nested(false), nested(true));
  return bin(BinOp::Or, empty, bin(BinOp::And, small, order));
}

LmadSyn lmad_as_evaluated(const LmadSyn& l0) {
  LmadSyn l = l0;
  if (l.offset) l.offset = as_address(normal_form(l.offset));
  for (auto& [count, stride] : l.dims) {
    count = as_size(normal_form(count));
    stride = as_address(normal_form(stride));
  }
  for (SExpP& a : l.args)
    a = as_size(a);
  return l;
}

SExpP inner_dims_nonempty(const SymLmad& l, Pos pos) {
  SExpP cond;
  for (size_t k = 1; k < l.dims.size(); ++k) {
    if (auto c = l.dims[k].first.constant(); c && *c > 0) continue;
    SExpP d = mk_bin(BinOp::Lt, mk_int(0, pos), as_size(sexp(l.dims[k].first)), pos);
    cond = cond ? mk_bin(BinOp::And, cond, d, pos) : d;
  }
  return cond;
}

std::string fresh_name(const std::set<std::string>& used, const std::string& base) {
  std::string n = base;
  for (int k = 2; used.count(n); ++k)
    n = base + std::to_string(k);
  return n;
}

std::string FreshNames::operator()(const std::string& base) {
  if (used_.insert(base).second) return base;
  int& k = next_.try_emplace(base, 2).first->second;
  std::string n = base + std::to_string(k);
  while (!used_.insert(n).second)
    n = base + std::to_string(++k);
  ++k;
  return n;
}

} // namespace funmem

namespace funmem {

namespace {

/// Alpha-renaming with a stack of scopes (see uniquify); with `drop_invariant`, no
/// renaming but invariant loop memory parameters dropped (drop_invariant_mem_params).
class Uniquifier {
public:
  explicit Uniquifier(const Def& d, bool drop_invariant = false)
      : fresh_(bound_names(d)), drop_invariant_(drop_invariant) {}

  void def(Def& d) {
    scopes_.emplace_back();
    for (Binding& b : d.params)
      bind(b.name);
    for (Binding& b : d.params)
      type(b.type);
    for (Type& t : d.rets)
      type(t);
    body(d.body, false);
  }

private:
  FreshNames fresh_;
  const bool drop_invariant_;
  std::set<std::string> seen_;
  std::vector<std::map<std::string, std::string>> scopes_;

  void bind(Name& n) {
    std::string to = n.s;
    if (!seen_.insert(n.s).second && !drop_invariant_) {
      to = fresh_(n.s);
      seen_.insert(to);
    }
    scopes_.back()[n.s] = to;
    n.s = to;
  }
  void use(std::string& s) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(s);
      if (f != it->end()) {
        s = f->second;
        return;
      }
    }
  }
  void use(Name& n) const { use(n.s); }
  SExpP sexp(const SExpP& e) const {
    if (!e) return e;
    SExp c = *e;
    std::visit(Overloaded{[&](SVar& v) { use(v.name); }, [](Lit&) {},
                          [&](SUnary& u) { u.a = sexp(u.a); },
                          [&](SBinary& b) {
                            b.a = sexp(b.a);
                            b.b = sexp(b.b);
                          },
                          [&](SCall& k) {
                            for (auto& a : k.args)
                              a = sexp(a);
                          }},
               c.node);
    return c;
  }
  void lmad(LmadSyn& l) const {
    l.offset = sexp(l.offset);
    for (auto& [c, s] : l.dims) {
      c = sexp(c);
      s = sexp(s);
    }
    for (auto& a : l.args)
      a = sexp(a);
  }
  void type(std::optional<Type>& t) const {
    if (t) type(*t);
  }
  void type(Type& t) const {
    for (auto& d : t.dims)
      d = sexp(d);
    if (t.ann) {
      use(t.ann->mem);
      lmad(t.ann->lmad);
    }
  }
  void entries(std::vector<Entry>& es) const {
    for (Entry& e : es) {
      e.start = sexp(e.start);
      e.count = sexp(e.count);
      e.stride = sexp(e.stride);
    }
  }
  void atom(AtomArg& a) const {
    if (auto* n = std::get_if<Name>(&a.v)) use(*n);
  }
  /// A nested body gets its own scope, entered by the caller when it binds names first.
  void body(Body& b, bool push = true) {
    if (push) scopes_.emplace_back();
    for (Stmt& s : b.stmts)
      stmt(s);
    for (Name& n : b.results)
      use(n);
    if (push) scopes_.pop_back();
  }
  void stmt(Stmt& s) {
    if (auto* a = std::get_if<SAssume>(&s.node)) {
      a->cond = sexp(a->cond);
      return;
    }
    SLet& l = std::get<SLet>(s.node);
    std::vector<std::pair<std::string, std::string>> dropped; // loop memory results, blocks
    std::visit(Overloaded{[&](EScalar& x) { x.e = sexp(x.e); },
                          [&](EIndex& x) {
                            use(x.arr);
                            entries(x.entries);
                          },
                          [&](ELmadSlice& x) {
                            use(x.arr);
                            lmad(x.lmad);
                          },
                          [&](ETranspose& x) { use(x.arr); },
                          [&](EIf& x) {
                            x.cond = sexp(x.cond);
                            body(x.then_body);
                            body(x.else_body);
                          },
                          [&](EKernel& x) {
                            x.bound = sexp(x.bound);
                            scopes_.emplace_back();
                            bind(x.iter);
                            body(x.body, false);
                            scopes_.pop_back();
                          },
                          [&](ELoop& x) {
                            x.bound = sexp(x.bound);
                            for (Name& n : x.inits)
                              use(n);
                            std::vector<bool> inv = invariant(x, l.pats.size());
                            scopes_.emplace_back();
                            for (size_t k = 0; k < x.params.size(); ++k) {
                              if (inv[k])
                                scopes_.back()[x.params[k].name.s] = x.inits[k].s;
                              else
                                bind(x.params[k].name);
                            }
                            for (Binding& p : x.params)
                              type(p.type);
                            bind(x.iter);
                            body(x.body, false);
                            scopes_.pop_back();
                            for (size_t k = inv.size(); k-- > 0;) {
                              if (!inv[k]) continue;
                              dropped.emplace_back(l.pats[k].name.s, x.inits[k].s);
                              erase_at(x.params, k);
                              erase_at(x.inits, k);
                              erase_at(x.body.results, k);
                              erase_at(l.pats, k);
                            }
                          },
                          [&](EUpdate& x) {
                            use(x.arr);
                            entries(x.entries);
                            atom(x.value);
                          },
                          [&](EUpdateLmad& x) {
                            use(x.arr);
                            lmad(x.lmad);
                            use(x.value);
                          },
                          [&](EConcat& x) {
                            use(x.a);
                            use(x.b);
                          },
                          [&](EIota& x) { x.n = sexp(x.n); },
                          [&](EReplicate& x) {
                            x.n = sexp(x.n);
                            atom(x.value);
                          },
                          [&](ECopy& x) { use(x.arr); }, [](EScratch&) {},
                          [&](EAlloc& x) { x.size = sexp(x.size); }},
               l.exp.node);
    for (const auto& [result, block] : dropped)
      scopes_.back()[result] = block;
    for (Binding& p : l.pats)
      bind(p.name);
    for (Binding& p : l.pats)
      type(p.type);
  }

  /// Which parameters of `x` are memory its body returns unchanged (dropped when
  /// drop_invariant_; the pattern must have one name per parameter).
  std::vector<bool> invariant(const ELoop& x, size_t pats) const {
    std::vector<bool> inv(x.params.size(), false);
    if (!drop_invariant_ || pats != x.params.size() || x.body.results.size() != x.params.size())
      return inv;
    std::set<std::string> rebound;
    bound_in(x.body, rebound);
    for (size_t k = 0; k < x.params.size(); ++k) {
      const Binding& p = x.params[k];
      inv[k] = p.type && p.type->kind == Type::Kind::Mem && x.body.results[k].s == p.name.s &&
               !rebound.count(p.name.s) && p.name.s != x.iter.s;
    }
    return inv;
  }
  template <class T> static void erase_at(std::vector<T>& v, size_t k) {
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(k));
  }
};

} // namespace

Def uniquify(const Def& d) {
  Def out = d;
  Uniquifier(d).def(out);
  return out;
}

Def drop_invariant_mem_params(const Def& d) {
  Def out = d;
  Uniquifier(d, true).def(out);
  return out;
}

} // namespace funmem
