#include "ir/names.h"

#include "ir/overloaded.h"

namespace funmem {

namespace {

template <class F> void each_sexp_var(const SExp& e, F& f) {
  std::visit(Overloaded{[&](const SVar& v) { f(v.name); }, [](const Lit&) {},
                        [&](const SUnary& u) { each_sexp_var(*u.a, f); },
                        [&](const SBinary& b) {
                          each_sexp_var(*b.a, f);
                          each_sexp_var(*b.b, f);
                        },
                        [&](const SCall& c) {
                          for (auto& a : c.args)
                            each_sexp_var(*a, f);
                        }},
             e.node);
}

} // namespace

void sexp_vars(const SExp& e, std::set<std::string>& out) {
  auto add = [&](const std::string& n) { out.insert(n); };
  each_sexp_var(e, add);
}

void bound_in(const Body& b, std::set<std::string>& out) {
  for (const Stmt& s : b.stmts)
    if (const auto* l = std::get_if<SLet>(&s.node)) {
      for (const Binding& p : l->pats)
        out.insert(p.name.s);
      std::visit(Overloaded{[&](const EIf& x) {
                              bound_in(x.then_body, out);
                              bound_in(x.else_body, out);
                            },
                            [&](const EKernel& x) {
                              out.insert(x.iter.s);
                              bound_in(x.body, out);
                            },
                            [&](const ELoop& x) {
                              out.insert(x.iter.s);
                              for (auto& p : x.params)
                                out.insert(p.name.s);
                              bound_in(x.body, out);
                            },
                            [](const auto&) {}},
                 l->exp.node);
    }
}

std::set<std::string> bound_names(const Def& d) {
  std::set<std::string> out;
  for (const Binding& b : d.params)
    out.insert(b.name.s);
  bound_in(d.body, out);
  return out;
}

void flowing_names(const Body& b, std::set<std::string>& out) {
  for (const Name& n : b.results)
    out.insert(n.s);
  for (const Stmt& s : b.stmts)
    if (const auto* l = std::get_if<SLet>(&s.node))
      std::visit(Overloaded{[&](const EIf& x) {
                              flowing_names(x.then_body, out);
                              flowing_names(x.else_body, out);
                            },
                            [&](const EKernel& x) { flowing_names(x.body, out); },
                            [&](const ELoop& x) {
                              for (auto& n : x.inits)
                                out.insert(n.s);
                              flowing_names(x.body, out);
                            },
                            [](const auto&) {}},
                 l->exp.node);
}

namespace {

template <class N, class M> void each_body_mention(const Body& b, N& name, M& mem);

/// Calls name(n) for every name a statement mentions (all names of nested bodies) and
/// mem(m) for every memory block named in its annotations; a name may come twice.
template <class N, class M> void each_mention(const Stmt& s, N& name, M& mem) {
  if (const auto* a = std::get_if<SAssume>(&s.node)) {
    each_sexp_var(*a->cond, name);
    return;
  }
  const SLet& l = std::get<SLet>(s.node);
  auto type = [&](const std::optional<Type>& t) {
    if (!t) return;
    for (auto& d : t->dims)
      each_sexp_var(*d, name);
    if (t->ann) mem(t->ann->mem.s);
  };
  for (const Binding& p : l.pats)
    type(p.type);
  auto entries = [&](const std::vector<Entry>& es) {
    for (const Entry& e : es) {
      each_sexp_var(*e.start, name);
      if (e.count) each_sexp_var(*e.count, name);
      if (e.stride) each_sexp_var(*e.stride, name);
    }
  };
  auto atom = [&](const AtomArg& a) {
    if (const auto* n = std::get_if<Name>(&a.v)) name(n->s);
  };
  std::visit(Overloaded{[&](const EScalar& x) { each_sexp_var(*x.e, name); },
                        [&](const EIndex& x) {
                          name(x.arr.s);
                          entries(x.entries);
                        },
                        [&](const ELmadSlice& x) { name(x.arr.s); },
                        [&](const ETranspose& x) { name(x.arr.s); },
                        [&](const EIf& x) {
                          each_sexp_var(*x.cond, name);
                          each_body_mention(x.then_body, name, mem);
                          each_body_mention(x.else_body, name, mem);
                        },
                        [&](const EKernel& x) {
                          each_sexp_var(*x.bound, name);
                          each_body_mention(x.body, name, mem);
                        },
                        [&](const ELoop& x) {
                          for (auto& p : x.params)
                            type(p.type);
                          for (auto& n : x.inits)
                            name(n.s);
                          each_sexp_var(*x.bound, name);
                          each_body_mention(x.body, name, mem);
                        },
                        [&](const EUpdate& x) {
                          name(x.arr.s);
                          entries(x.entries);
                          atom(x.value);
                        },
                        [&](const EUpdateLmad& x) {
                          name(x.arr.s);
                          name(x.value.s);
                        },
                        [&](const EConcat& x) {
                          name(x.a.s);
                          name(x.b.s);
                        },
                        [&](const EIota& x) { each_sexp_var(*x.n, name); },
                        [&](const EReplicate& x) {
                          each_sexp_var(*x.n, name);
                          atom(x.value);
                        },
                        [&](const ECopy& x) { name(x.arr.s); }, [](const EScratch&) {},
                        [&](const EAlloc& x) { each_sexp_var(*x.size, name); }},
             l.exp.node);
}

template <class N, class M> void each_body_mention(const Body& b, N& name, M& mem) {
  for (const Stmt& s : b.stmts)
    each_mention(s, name, mem);
  for (const Name& n : b.results)
    name(n.s);
}

} // namespace

void stmt_mentions(const Stmt& s, std::set<std::string>& names, std::set<std::string>& mems) {
  auto name = [&](const std::string& n) { names.insert(n); };
  auto mem = [&](const std::string& m) { mems.insert(m); };
  each_mention(s, name, mem);
}

void body_mentions(const Body& b, std::set<std::string>& names, std::set<std::string>& mems) {
  auto name = [&](const std::string& n) { names.insert(n); };
  auto mem = [&](const std::string& m) { mems.insert(m); };
  each_body_mention(b, name, mem);
}

bool body_mentions_name(const Body& b, const std::string& n) {
  bool found = false;
  auto check = [&](const std::string& x) { found = found || x == n; };
  each_body_mention(b, check, check);
  return found;
}

} // namespace funmem
