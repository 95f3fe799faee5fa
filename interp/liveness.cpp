#include "interp/liveness.h"

#include "ir/names.h"

#include <map>
#include <set>

namespace funmem::machine {

Liveness::Liveness(const Def& d) {
  std::vector<std::string> own;
  for (const Binding& b : d.params)
    own.push_back(b.name.s);
  compute(d.body, std::move(own));
}

void Liveness::compute(const Body& b, std::vector<std::string> own) {
  for (const Stmt& s : b.stmts)
    if (const auto* l = std::get_if<SLet>(&s.node))
      for (const Binding& p : l->pats)
        own.push_back(p.name.s);
  const std::set<std::string> own_set(own.begin(), own.end());
  std::set<std::string> results;
  for (const Name& n : b.results)
    results.insert(n.s);

  // The last statement that mentions or binds each name of the scope.
  std::map<std::string, size_t> last;
  for (size_t k = 0; k < b.stmts.size(); ++k) {
    std::set<std::string> names, mems;
    stmt_mentions(b.stmts[k], names, mems);
    names.insert(mems.begin(), mems.end());
    if (const auto* l = std::get_if<SLet>(&b.stmts[k].node))
      for (const Binding& p : l->pats)
        names.insert(p.name.s);
    for (const std::string& n : names)
      if (own_set.count(n)) last[n] = k;
  }
  BodyPlan plan;
  plan.dies_at.resize(b.stmts.size());
  for (const std::string& n : own_set) {
    if (results.count(n)) continue;
    auto it = last.find(n);
    if (it == last.end())
      plan.unused.push_back(n);
    else
      plan.dies_at[it->second].push_back(n);
  }

  for (size_t k = 0; k < b.stmts.size(); ++k) {
    const auto* l = std::get_if<SLet>(&b.stmts[k].node);
    if (!l) continue;
    if (const auto* x = std::get_if<EIf>(&l->exp.node)) {
      // The names dying at the `if`, less the ones it binds (not bound inside).
      std::vector<std::string> dying;
      for (const std::string& n : plan.dies_at[k]) {
        bool bound_here = false;
        for (const Binding& p : l->pats)
          bound_here = bound_here || p.name.s == n;
        if (!bound_here) dying.push_back(n);
      }
      compute(x->then_body, dying);
      compute(x->else_body, dying);
    } else if (const auto* kr = std::get_if<EKernel>(&l->exp.node)) {
      compute(kr->body, {kr->iter.s});
    } else if (const auto* lp = std::get_if<ELoop>(&l->exp.node)) {
      std::vector<std::string> params = {lp->iter.s};
      for (const Binding& p : lp->params)
        params.push_back(p.name.s);
      compute(lp->body, params);
    }
  }
  plans_[&b] = std::move(plan);
}

} // namespace funmem::machine
