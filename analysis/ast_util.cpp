// Shared traversals of the passes (see ast_util.h).
#include "analysis/ast_util.h"

#include "analysis/syntax_util.h"
#include "ir/overloaded.h"

namespace funmem {

void sexp_vars(const SExp& e, std::set<std::string>& out) {
  std::visit(Overloaded{[&](const SVar& v) { out.insert(v.name); }, [](const Lit&) {},
                        [&](const SUnary& u) { sexp_vars(*u.a, out); },
                        [&](const SBinary& b) {
                          sexp_vars(*b.a, out);
                          sexp_vars(*b.b, out);
                        },
                        [&](const SCall& c) {
                          for (auto& a : c.args)
                            sexp_vars(*a, out);
                        }},
             e.node);
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

/// Every name a statement mentions (over-approximated: all names of nested bodies), and
/// separately the memory blocks named in its annotations.
void stmt_mentions(const Stmt& s, std::set<std::string>& names, std::set<std::string>& mems) {
  if (const auto* a = std::get_if<SAssume>(&s.node)) {
    sexp_vars(*a->cond, names);
    return;
  }
  const SLet& l = std::get<SLet>(s.node);
  auto type = [&](const std::optional<Type>& t) {
    if (!t) return;
    for (auto& d : t->dims)
      sexp_vars(*d, names);
    if (t->ann) mems.insert(t->ann->mem.s);
  };
  for (const Binding& p : l.pats)
    type(p.type);
  auto entries = [&](const std::vector<Entry>& es) {
    for (const Entry& e : es) {
      sexp_vars(*e.start, names);
      if (e.count) sexp_vars(*e.count, names);
      if (e.stride) sexp_vars(*e.stride, names);
    }
  };
  auto atom = [&](const AtomArg& a) {
    if (const auto* n = std::get_if<Name>(&a.v)) names.insert(n->s);
  };
  std::visit(Overloaded{[&](const EScalar& x) { sexp_vars(*x.e, names); },
                        [&](const EIndex& x) {
                          names.insert(x.arr.s);
                          entries(x.entries);
                        },
                        [&](const ELmadSlice& x) { names.insert(x.arr.s); },
                        [&](const ETranspose& x) { names.insert(x.arr.s); },
                        [&](const EIf& x) {
                          sexp_vars(*x.cond, names);
                          body_mentions(x.then_body, names, mems);
                          body_mentions(x.else_body, names, mems);
                        },
                        [&](const EKernel& x) {
                          sexp_vars(*x.bound, names);
                          body_mentions(x.body, names, mems);
                        },
                        [&](const ELoop& x) {
                          for (auto& p : x.params)
                            type(p.type);
                          for (auto& n : x.inits)
                            names.insert(n.s);
                          sexp_vars(*x.bound, names);
                          body_mentions(x.body, names, mems);
                        },
                        [&](const EUpdate& x) {
                          names.insert(x.arr.s);
                          entries(x.entries);
                          atom(x.value);
                        },
                        [&](const EUpdateLmad& x) {
                          names.insert(x.arr.s);
                          names.insert(x.value.s);
                        },
                        [&](const EConcat& x) {
                          names.insert(x.a.s);
                          names.insert(x.b.s);
                        },
                        [&](const EIota& x) { sexp_vars(*x.n, names); },
                        [&](const EReplicate& x) {
                          sexp_vars(*x.n, names);
                          atom(x.value);
                        },
                        [&](const ECopy& x) { names.insert(x.arr.s); }, [](const EScratch&) {},
                        [&](const EAlloc& x) { sexp_vars(*x.size, names); }},
             l.exp.node);
}

void body_mentions(const Body& b, std::set<std::string>& names, std::set<std::string>& mems) {
  for (const Stmt& s : b.stmts)
    stmt_mentions(s, names, mems);
  for (const Name& n : b.results)
    names.insert(n.s);
}

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

std::string FreshNames::operator()(const std::string& base) {
  std::string n = base;
  for (int k = 2; used_.count(n); ++k)
    n = base + std::to_string(k);
  used_.insert(n);
  return n;
}

} // namespace funmem
