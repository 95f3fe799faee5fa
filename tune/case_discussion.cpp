#include "tune/case_discussion.h"

#include <algorithm>
#include <sstream>

namespace funmem {

namespace {

struct Builder {
  const std::vector<ResourceCounter>& counters;
  const EvaluateCounters& evaluate;
  const CaseOptions& opt;
  CaseDiscussion& out;

  /// Whether domain && system may have a solution (Unsat prunes; Unknown keeps).
  SatResult satisfiable(const std::vector<Formula>& system, Env* model) {
    Solver s(opt.domain, opt.timeout_ms);
    return s.check(system, opt.vars, model, opt.timeout_ms);
  }

  const ResourceCounter& counter(const std::string& name) const {
    for (const ResourceCounter& c : counters)
      if (c.name == name) return c;
    throw std::logic_error("case discussion: no counter '" + name + "'");
  }

  /// Algorithm 2: `todo` is the stack of counters still to evaluate (its back next).
  std::unique_ptr<CaseNode> optimize(const std::vector<Formula>& system,
                                     const std::vector<std::string>& applied,
                                     std::vector<std::string> todo) {
    auto node = std::make_unique<CaseNode>();
    if (todo.empty()) {
      CaseLeaf leaf;
      leaf.constraints = system;
      leaf.strategies = applied;
      leaf.counters = evaluate(applied);
      leaf.consistent = satisfiable(system, &leaf.model);
      node->leaf = out.leaves.size();
      out.leaves.push_back(std::move(leaf));
      return node;
    }
    const ResourceCounter& c = counter(todo.back());
    todo.pop_back();
    const Poly v = evaluate(applied).at(c.name);
    const Poly limit = Poly::var(c.limit);
    node->counter = c.name;
    node->accept_edge = Formula::conj({le(Poly(0), v), le(v, limit)});
    node->refuse_edge = lt(limit, v);

    std::vector<Formula> accept = system;
    accept.push_back(node->accept_edge);
    if (satisfiable(accept, nullptr) == SatResult::Unsat)
      node->pruned.push_back("accept");
    else
      node->accept = optimize(accept, applied, todo);

    std::vector<Formula> refuse = system;
    refuse.push_back(node->refuse_edge);
    auto next = std::find_if(c.lowered_by.begin(), c.lowered_by.end(), [&](const std::string& o) {
      return std::find(applied.begin(), applied.end(), o) == applied.end();
    });
    if (satisfiable(refuse, nullptr) == SatResult::Unsat) {
      node->pruned.push_back("refuse");
    } else if (next == c.lowered_by.end()) {
      node->refuse_without_strategy = true;
    } else {
      node->strategy = *next;
      std::vector<std::string> applied2 = applied;
      applied2.push_back(*next);
      // Evaluate c and every counter before it again on the new variant (the paper's
      // "push r_1, ..., r_i"): they go on top of the stack, r_1 to be evaluated first.
      std::vector<std::string> again;
      for (const ResourceCounter& r : counters) {
        again.push_back(r.name);
        if (r.name == c.name) break;
      }
      std::vector<std::string> todo2 = todo;
      for (size_t k = again.size(); k-- > 0;)
        todo2.push_back(again[k]);
      node->refuse = optimize(refuse, applied2, todo2);
    }
    return node;
  }
};

std::string strategies_text(const std::vector<std::string>& s) {
  if (s.empty()) return "none";
  std::string out;
  for (const std::string& x : s)
    out += (out.empty() ? "" : ", ") + x;
  return out;
}

void tree_text(const CaseDiscussion& d, const CaseNode& n, int depth, std::ostringstream& o) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  if (n.leaf) {
    const CaseLeaf& l = d.leaves[*n.leaf];
    o << pad << "leaf " << *n.leaf + 1 << ": strategies " << strategies_text(l.strategies);
    for (const auto& [name, v] : l.counters)
      o << "; " << name << " = " << v.to_string();
    if (l.consistent == SatResult::Unknown) o << " (consistency unknown: kept)";
    o << "\n";
    return;
  }
  o << pad << n.counter << ": accept " << n.accept_edge.to_string() << "\n";
  if (n.accept)
    tree_text(d, *n.accept, depth + 1, o);
  else
    o << pad << "  (no solution: pruned)\n";
  o << pad << n.counter << ": refuse " << n.refuse_edge.to_string();
  if (n.refuse) {
    o << ", apply " << n.strategy << "\n";
    tree_text(d, *n.refuse, depth + 1, o);
  } else if (n.refuse_without_strategy) {
    o << ": no strategy lowers it (not covered)\n";
  } else {
    o << "\n" << pad << "  (no solution: pruned)\n";
  }
}

} // namespace

CaseDiscussion comprehensive(const std::vector<ResourceCounter>& counters,
                             const EvaluateCounters& evaluate, const CaseOptions& opt) {
  CaseDiscussion d;
  Builder b{counters, evaluate, opt, d};
  std::vector<std::string> todo;
  for (size_t k = counters.size(); k-- > 0;)
    todo.push_back(counters[k].name);
  d.root = b.optimize({}, {}, todo);

  // (i) every leaf's system has a solution.
  d.all_consistent = !d.leaves.empty();
  for (const CaseLeaf& l : d.leaves)
    d.all_consistent = d.all_consistent && l.consistent == SatResult::Sat;
  // (iii) coverage: domain && !(C_1 || ... || C_e) has no solution.
  std::vector<Formula> cases;
  for (const CaseLeaf& l : d.leaves)
    cases.push_back(Formula::conj(l.constraints));
  Env point;
  d.coverage = b.satisfiable({Formula::negate(Formula::disj(cases))}, &point);
  if (d.coverage == SatResult::Sat) d.uncovered = point;
  // (iv) per counter, a leaf where no strategy of its list changes its value.
  for (const ResourceCounter& c : counters) {
    d.optimal_leaf[c.name] = std::nullopt;
    for (size_t k = 0; k < d.leaves.size() && !d.optimal_leaf[c.name]; ++k) {
      const CaseLeaf& l = d.leaves[k];
      bool optimal = true;
      for (const std::string& o : c.lowered_by) {
        if (std::find(l.strategies.begin(), l.strategies.end(), o) != l.strategies.end())
          continue; // applied already: idempotent
        std::vector<std::string> more = l.strategies;
        more.push_back(o);
        optimal = optimal && evaluate(more).at(c.name) == l.counters.at(c.name);
      }
      if (optimal) d.optimal_leaf[c.name] = k;
    }
  }
  return d;
}

std::string case_tree_text(const CaseDiscussion& d) {
  std::ostringstream o;
  if (d.root) tree_text(d, *d.root, 0, o);
  o << "leaves: " << d.leaves.size()
    << ", every system consistent: " << (d.all_consistent ? "yes" : "no") << "\ncoverage: ";
  if (d.coverage == SatResult::Unsat) {
    o << "proved\n";
  } else if (d.coverage == SatResult::Sat) {
    o << "not covered, e.g.";
    for (const auto& [n, v] : d.uncovered)
      o << " " << n << "=" << v;
    o << "\n";
  } else {
    o << "unknown (Z3 gave no answer)\n";
  }
  for (const auto& [name, leaf] : d.optimal_leaf)
    o << "optimal " << name << ": "
      << (leaf ? "leaf " + std::to_string(*leaf + 1) : std::string("no leaf")) << "\n";
  return o.str();
}

} // namespace funmem
