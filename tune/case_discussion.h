// Comprehensive optimisation (Chen, Moreno Maza, Paudel, Xie,
// ../shared/seeds/comprehensive-parametric-kernels.txt: Definition 2, Algorithms 1 and 2)
// for resource counters: a case discussion over machine parameters (the limits: R
// registers per thread, Z shared memory per block, T threads per block) and program
// parameters (block size, thread granularity, sizes), whose leaves are the variants of
// a kernel with the optimisation strategies applied on their path.
//
// At a node, the next counter c of the stack is evaluated on the node's variant, giving
// v (a polynomial in the program parameters). The accept edge adds `0 <= v <= L_c` (L_c
// the counter's machine parameter) and goes on with the next counter; the refuse edge
// adds `L_c < v`, applies the first strategy of c's list not applied yet, and evaluates
// c and the counters before it again on the new variant (they may have changed). A
// refuse edge without a strategy left is dropped: where c exceeds its limit and nothing
// lowers it, no leaf runs (coverage then names that region). A node whose system Z3
// shows unsatisfiable is pruned; an `unknown` keeps the branch and the leaf says so.
//
// Definition 2 is checked, not assumed: (i) every leaf's system is satisfiable (Z3,
// with a model confirmed by evaluation); (iii) the leaves cover the domain (Z3 shows
// domain && !(C_1 || ... || C_e) unsatisfiable, or gives a point of the uncovered
// region); (iv) for each counter, a leaf where no strategy of its list changes its
// value. (ii), every leaf computes what the source does, is the lowering's business
// (translation validation and the emulation run each leaf).
// Example: one counter `threads` <= T with value B and the strategy `halve` (B/2): the
// tree is accept `B <= T` -> leaf [], refuse `T < B` -> accept `B/2 <= T` -> leaf [halve].
#pragma once

#include "analysis/formula.h"
#include "analysis/solver.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace funmem {

struct ResourceCounter {
  std::string name;                    // "registers", "shared", "threads"
  std::string limit;                   // its machine parameter: "R", "Z", "T"
  std::vector<std::string> lowered_by; // sigma(c): strategies that may lower it, in order
};

/// The counters of a variant (each a polynomial in the program parameters).
using CounterValues = std::map<std::string, Poly>;
/// The counters of the variant with `applied` strategies (in the order applied).
using EvaluateCounters = std::function<CounterValues(const std::vector<std::string>& applied)>;

struct CaseLeaf {
  std::vector<Formula> constraints;    // the system of the path (the domain not included)
  std::vector<std::string> strategies; // applied on the path, in order
  CounterValues counters;
  SatResult consistent = SatResult::Unknown; // Sat: `model` satisfies domain && system
  Env model;
};

/// A node of the case discussion: a leaf, or a counter with its accept and refuse edges.
struct CaseNode {
  std::optional<size_t> leaf; // index into CaseDiscussion::leaves
  std::string counter;        // evaluated here
  Formula accept_edge, refuse_edge;
  std::string strategy; // applied on the refuse edge
  std::unique_ptr<CaseNode> accept, refuse;
  bool refuse_without_strategy = false; // the refuse edge was dropped: nothing lowers it
  std::vector<std::string> pruned;      // "accept" / "refuse": children Z3 showed empty
};

struct CaseDiscussion {
  std::unique_ptr<CaseNode> root;
  std::vector<CaseLeaf> leaves;
  // Definition 2's conditions as checked.
  bool all_consistent = false;             // (i): every leaf Sat
  SatResult coverage = SatResult::Unknown; // (iii): Unsat = covered
  Env uncovered;                           // (iii) failed: a point of the domain no leaf holds at
  std::map<std::string, std::optional<size_t>> optimal_leaf; // (iv): per counter
};

struct CaseOptions {
  std::vector<Formula> domain;   // what every parameter satisfies (e.g. R >= 1, B >= 1)
  std::vector<std::string> vars; // every machine and program parameter
  unsigned timeout_ms = 2000;    // per Z3 question
};

/// Algorithms 1 and 2 of the seed over the counters (evaluated in the given order), then
/// the checks of Definition 2.
CaseDiscussion comprehensive(const std::vector<ResourceCounter>& counters,
                             const EvaluateCounters& evaluate, const CaseOptions& opt);

/// The tree as the paper's figures draw it: one line per edge, indented, accept edges
/// before refuse edges, leaves with their strategies and counters.
std::string case_tree_text(const CaseDiscussion& d);

} // namespace funmem
