// unmem (see unmem.h).
#include "ir/unmem.h"

#include "ir/overloaded.h"

namespace funmem {

namespace {

Type unmem_type(const Type& t) {
  Type r = t;
  if (r.kind == Type::Kind::Mem) {
    r.kind = Type::Kind::Scalar;
    r.elem = ScalarType::I64;
  }
  r.ann.reset();
  return r;
}

void unmem_bindings(std::vector<Binding>& bs) {
  for (Binding& b : bs)
    if (b.type) b.type = unmem_type(*b.type);
}

Body unmem_body(const Body& b);

Exp unmem_exp(const Exp& e) {
  Exp r = e;
  std::visit(Overloaded{[&](EIf& x) {
                          x.then_body = unmem_body(x.then_body);
                          x.else_body = unmem_body(x.else_body);
                        },
                        [&](EKernel& x) { x.body = unmem_body(x.body); },
                        [&](ELoop& x) {
                          unmem_bindings(x.params);
                          x.body = unmem_body(x.body);
                        },
                        [&](EAlloc&) { r.node = EScalar{mk_int(0, e.pos)}; }, [](auto&) {}},
             r.node);
  return r;
}

Body unmem_body(const Body& b) {
  Body r = b;
  for (Stmt& s : r.stmts)
    if (auto* l = std::get_if<SLet>(&s.node)) {
      unmem_bindings(l->pats);
      l->exp = unmem_exp(l->exp);
    }
  return r;
}

} // namespace

Program unmem(const Program& p) {
  Program r = p;
  r.lang = Lang::Fun;
  unmem_bindings(r.def.params);
  for (Type& t : r.def.rets)
    t = unmem_type(t);
  r.def.body = unmem_body(p.def.body);
  return r;
}

} // namespace funmem
