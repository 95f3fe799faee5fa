// Syntax <-> symbolic conversion (see convert.h).
#include "ir/convert.h"

#include "ir/overloaded.h"
#include "ir/parser.h"

#include <algorithm>

namespace funmem {

std::optional<Poly> to_poly(const SExp& e) {
  return std::visit(
      Overloaded{[](const Lit& l) -> std::optional<Poly> {
                   if (l.type != ScalarType::I64) return std::nullopt;
                   return Poly(l.i);
                 },
                 [](const SVar& v) -> std::optional<Poly> { return Poly::var(v.name); },
                 [](const SUnary& u) -> std::optional<Poly> {
                   if (u.op != UnOp::Neg) return std::nullopt;
                   auto a = to_poly(*u.a);
                   if (!a) return a;
                   return -*a;
                 },
                 [](const SBinary& b) -> std::optional<Poly> {
                   auto x = to_poly(*b.a), y = to_poly(*b.b);
                   if (!x || !y) return std::nullopt;
                   switch (b.op) {
                   case BinOp::Add:
                     return *x + *y;
                   case BinOp::Sub:
                     return *x - *y;
                   case BinOp::Mul:
                     return *x * *y;
                   case BinOp::Div:
                     return Poly::div(*x, *y);
                   case BinOp::Mod:
                     return Poly::mod(*x, *y);
                   default:
                     return std::nullopt;
                   }
                 },
                 [](const SCall& c) -> std::optional<Poly> {
                   std::vector<Poly> a;
                   for (const SExpP& x : c.args) {
                     auto p = to_poly(*x);
                     if (!p) return std::nullopt;
                     a.push_back(*p);
                   }
                   switch (c.fn) {
                   case Fn::Min:
                     return Poly::min(a[0], a[1]);
                   case Fn::Max:
                     return Poly::max(a[0], a[1]);
                   case Fn::Abs:
                     return Poly::abs(a[0]);
                   case Fn::Size: // the integer value (outside i64 the run ends)
                     return a[0];
                   default: // an Address may differ from its polynomial by 2^64
                     return std::nullopt;
                   }
                 }},
      e.node);
}

std::optional<SExpP> to_sexp(const Poly& p) {
  // Mirrors Poly::to_string and the grammar: terms joined left to right by + and -, a
  // term's factors by *, a leading '-' binding to the first factor (to the coefficient
  // as a negative literal), / and % atoms in parentheses, min/max/abs as calls.
  const auto order = p.print_order();
  if (order.empty()) return mk_int(0);
  auto atom = [](const Atom& a) -> std::optional<SExpP> {
    if (a.kind == AtomKind::Var) {
      if (!is_name(a.name)) return std::nullopt;
      return mk_var(a.name);
    }
    std::vector<SExpP> args;
    for (const Poly& q : a.args) {
      auto e = to_sexp(q);
      if (!e) return std::nullopt;
      args.push_back(*e);
    }
    switch (a.kind) {
    case AtomKind::Div:
      return mk_bin(BinOp::Div, args[0], args[1]);
    case AtomKind::Mod:
      return mk_bin(BinOp::Mod, args[0], args[1]);
    case AtomKind::Min:
      return SExpP(SExp{SCall{Fn::Min, args}, Pos{}});
    case AtomKind::Max:
      return SExpP(SExp{SCall{Fn::Max, args}, Pos{}});
    case AtomKind::Abs:
      return SExpP(SExp{SCall{Fn::Abs, args}, Pos{}});
    case AtomKind::Var:
      break;
    }
    return std::nullopt;
  };
  std::optional<SExpP> sum;
  for (const auto& [m, c] : order) {
    const bool first = !sum, neg = c < 0;
    const bool need_coef = m->empty() || (c != 1 && c != -1);
    std::optional<SExpP> term;
    if (need_coef) {
      if (first && neg) {
        term = mk_int(c);
      } else {
        if (c == INT64_MIN) return std::nullopt; // its magnitude is out of range
        term = mk_int(neg ? -c : c);
      }
    }
    for (const auto& [a, e] : *m) {
      auto f = atom(*a);
      if (!f) return std::nullopt;
      for (int i = 0; i < e; ++i) {
        if (term) {
          term = mk_bin(BinOp::Mul, *term, *f);
        } else {
          term = first && neg ? SExpP(SExp{SUnary{UnOp::Neg, *f}, Pos{}}) : *f;
        }
      }
    }
    sum = first ? *term : mk_bin(neg ? BinOp::Sub : BinOp::Add, *sum, *term);
  }
  return sum;
}

namespace {

/// Whether an expression is built of names, i64 literals, +, - and * alone: its normal
/// form can fail only by overflow, as it can (not a division by zero first). The two may
/// overflow on different values: `(a-b)*c` and `a*c - b*c` (docs/passes.md).
bool ring_only(const SExp& e) {
  if (const auto* b = std::get_if<SBinary>(&e.node))
    return (b->op == BinOp::Add || b->op == BinOp::Sub || b->op == BinOp::Mul) &&
           ring_only(*b->a) && ring_only(*b->b);
  if (const auto* u = std::get_if<SUnary>(&e.node)) return u->op == UnOp::Neg && ring_only(*u->a);
  if (const auto* l = std::get_if<Lit>(&e.node)) return l->type == ScalarType::I64;
  return std::holds_alternative<SVar>(e.node);
}

/// `e` with every node at `pos` (an error inside reports the expression it stands for).
SExpP placed(const SExp& e, Pos pos) {
  SExp r = e;
  r.pos = pos;
  if (auto* b = std::get_if<SBinary>(&r.node)) {
    b->a = placed(*b->a, pos);
    b->b = placed(*b->b, pos);
  } else if (auto* u = std::get_if<SUnary>(&r.node)) {
    u->a = placed(*u->a, pos);
  } else if (auto* c = std::get_if<SCall>(&r.node)) {
    for (SExpP& a : c->args)
      a = placed(*a, pos);
  }
  return SExpP(std::move(r));
}

} // namespace

SExpP normal_form(const SExpP& e) {
  if (!ring_only(*e)) return e;
  try {
    auto p = to_poly(*e);
    if (!p) return e;
    auto n = to_sexp(*p);
    return n ? placed(**n, e->pos) : e;
  } catch (const SymbolicOverflow&) {
    return e;
  }
}

namespace {

bool has_ring_op(const SExp& e) {
  if (const auto* b = std::get_if<SBinary>(&e.node))
    return b->op == BinOp::Add || b->op == BinOp::Sub || b->op == BinOp::Mul ||
           has_ring_op(*b->a) || has_ring_op(*b->b);
  if (const auto* u = std::get_if<SUnary>(&e.node)) return u->op == UnOp::Neg || has_ring_op(*u->a);
  if (const auto* c = std::get_if<SCall>(&e.node))
    for (const SExpP& a : c->args)
      if (has_ring_op(*a)) return true;
  return false;
}

SExpP marked(Fn f, const SExpP& e) {
  if (!has_ring_op(*e)) return e;
  if (const auto* c = std::get_if<SCall>(&e->node); c && c->fn == f) return e;
  return SExpP(SExp{SCall{f, {e}}, e->pos});
}

} // namespace

SExpP as_size(const SExpP& e) {
  return marked(Fn::Size, e);
}
SExpP as_address(const SExpP& e) {
  return marked(Fn::Address, e);
}

} // namespace funmem
