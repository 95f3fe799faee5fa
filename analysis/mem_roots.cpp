// The blocks a memory name may be at run time (see mem_roots.h).
#include "analysis/mem_roots.h"

#include "ir/overloaded.h"

namespace funmem {

namespace {

bool is_mem(const Binding& b) {
  return b.type && b.type->kind == Type::Kind::Mem;
}

} // namespace

MemRoots::MemRoots(const Def& d) {
  for (const Binding& b : d.params)
    if (is_mem(b)) roots_[b.name.s].insert(b.name.s);
  body(d.body);
}

bool MemRoots::may_alias(const std::string& a, const std::string& b) const {
  if (a == b) return true;
  auto ia = roots_.find(a), ib = roots_.find(b);
  if (ia == roots_.end() || ib == roots_.end()) return true;
  for (const std::string& r : ia->second)
    if (ib->second.count(r)) return true;
  return false;
}

std::set<std::string> MemRoots::of(const std::string& n) const {
  auto it = roots_.find(n);
  return it == roots_.end() ? std::set<std::string>{n} : it->second;
}

bool MemRoots::add(const std::string& n, const std::set<std::string>& r) {
  auto& mine = roots_[n];
  const size_t before = mine.size();
  mine.insert(r.begin(), r.end());
  return mine.size() != before;
}

void MemRoots::body(const Body& b) {
  for (const Stmt& s : b.stmts)
    if (const auto* l = std::get_if<SLet>(&s.node)) let(*l);
}

void MemRoots::let(const SLet& l) {
  std::visit(Overloaded{[&](const EAlloc&) { add(l.pats.at(0).name.s, {l.pats[0].name.s}); },
                        [&](const EIf& x) {
                          body(x.then_body);
                          body(x.else_body);
                          for (size_t k = 0; k < l.pats.size(); ++k)
                            if (is_mem(l.pats[k]))
                              for (const Body* b : {&x.then_body, &x.else_body})
                                add(l.pats[k].name.s, of(b->results.at(k).s));
                        },
                        [&](const ELoop& x) {
                          for (size_t k = 0; k < x.params.size(); ++k)
                            if (is_mem(x.params[k])) add(x.params[k].name.s, of(x.inits.at(k).s));
                          // A parameter may be what the body returns for it, which may
                          // be the parameter's own blocks: to a fixed point.
                          for (bool changed = true; changed;) {
                            body(x.body);
                            changed = false;
                            for (size_t k = 0; k < x.params.size(); ++k)
                              if (is_mem(x.params[k]))
                                changed |= add(x.params[k].name.s, of(x.body.results.at(k).s));
                          }
                          for (size_t k = 0; k < l.pats.size() && k < x.params.size(); ++k)
                            if (is_mem(l.pats[k])) add(l.pats[k].name.s, of(x.params[k].name.s));
                        },
                        [&](const EKernel& x) { body(x.body); }, [](const auto&) {}},
             l.exp.node);
}

} // namespace funmem
