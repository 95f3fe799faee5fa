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

namespace {

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

} // namespace

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
