// Internals of array short-circuiting (thesis ch. 6; see analysis/short_circuit.h),
// shared by the modules of this folder:
//   facts.cpp       facts of statements, loop ranges and places
//   pass.cpp        the pass object, its lookups (blocks, aliases, layouts) and entry
//   summaries.cpp   access summaries (U, W) and the non-overlap checks of 6.4.3 / 6.6
//   sweep.cpp       the sweep over points and the order of attempts
//   attempt.cpp     one attempt, as the numbered steps of ch. 6, and applying it
//   loops.cpp       loops carrying the source (6.6.1), lifting definitions, run-time checks
//   bounds.cpp      bounds of the place, statements that may fail, positivity
//   scalar_map.cpp  the in-place scalar map (6.9)
//   report.cpp      the report for people
#pragma once

#include "analysis/ast_util.h"
#include "analysis/short_circuit.h"
#include "analysis/solver.h"
#include "ir/convert.h"
#include "ir/overloaded.h"
#include "ir/printer.h"
#include "ir/scalar_types.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

namespace funmem::sc {

std::string at(Pos p);

/// Adds a solver's counts to an attempt when it goes out of scope (also on refusal).
struct Account {
  Account(const Solver& s, ScAttempt& at)
      : solver(s), a(at), queries0(s.stats().queries), z3_0(s.stats().z3_calls) {}
  Account(const Account&) = delete;
  Account& operator=(const Account&) = delete;
  ~Account() {
    a.queries += solver.stats().queries - queries0;
    a.z3_calls += solver.stats().z3_calls - z3_0;
  }
  const Solver& solver;
  ScAttempt& a;
  int queries0, z3_0;
};

/// Thrown when a kernel's array is not a candidate for an in-place scalar map (6.9's
/// conditions 1-6); such candidates are not attempts and are not reported.
struct NotCandidate {
  std::string why;
};

/// The safety properties an attempt checks (thesis ch. 6); a refusal names the one that
/// failed (ScAttempt::property, the corpus's `-- refuses:` lines).
enum class Property {
  CreationPoint,     // "creation point": the source has an array creation point
  ChangeOfLayout,    // 6.4.1: only transpositions between creation and point
  LastUse,           // "last use": the point is the source's last use
  DestinationMemory, // 6.2 (1): the destination's block exists at the creation
  Projection,        // 6.4.2: the names of the projected index function exist there
  Bounds,            // the place lies inside the destination
  NonOverlap,        // 6.4.3: no use of the destination between creation and point
  LaterIterations,   // 6.6.1: a loop carrying the source, later iterations
  OtherThreads,      // 6.6.2: a kernel creating the source, other threads
  EnclosingThreads,  // 6.6.2: a kernel around the point, other threads
  Loops,             // 6.6.1: a loop's writes cannot be expanded over its iterations
  Summary,           // an access cannot be summarised (an untranslatable expression)
};
/// As reported: "creation point", "6.4.1 change of layout", ...
const char* property_name(Property p);
/// The rule a non-overlap proof is recorded under ("6.4.3", "6.6.2 other threads").
const char* property_rule(Property p);

/// Thrown inside an attempt: the safety property that failed and why.
struct Refused {
  Property property;
  std::string reason;
  const char* rule = nullptr; // the refusal's rule under its property (sc_rules()), if any
};

struct Frame {
  enum class Kind { Top, Kernel, Loop, Branch };
  Body* body = nullptr;
  size_t idx = 0; // the statement of `body` holding the next frame, or the point
  Kind kind = Kind::Top;
  std::string iter;
  SExpP bound;
};

/// An access: a set of points of a memory block, with what made it.
struct Acc {
  SymLmad l;
  std::string what;
  /// Where a use happens: the statement of the body being checked. The facts that hold
  /// there (those of the statements before it) decide questions about it; an `assume`
  /// after it does not hold when it runs.
  size_t at = SIZE_MAX;
  /// The array whose elements it reads or writes (empty: a place of the source).
  std::string array = {};
};

/// An access summary (U_ys or W_x); `undet` says why it cannot be summarised.
struct Summary {
  std::vector<Acc> accs;
  std::optional<std::string> undet;
  void add(const Summary& o) {
    accs.insert(accs.end(), o.accs.begin(), o.accs.end());
    if (!undet && o.undet) undet = o.undet;
  }
};

/// Bindings, definition sites and may-alias classes of memory names of one definition.
struct Index {
  std::unordered_map<std::string, Binding*> binding;
  std::unordered_map<std::string, std::pair<Body*, size_t>> site; // statement lets only
  std::unordered_map<std::string, std::string> parent;
  /// Where a block held by a name flows within one iteration (loop initial values into
  /// parameters, body and branch results into result patterns); the back edge from a
  /// loop body's result to its parameter (the next iteration) is only in `parent`.
  std::unordered_map<std::string, std::vector<std::string>> flows;
  std::set<std::string> iters; // kernel and loop counters (i64)
  /// Each loop parameter's loop and position.
  std::unordered_map<std::string, std::pair<const ELoop*, size_t>> loop_param;
  std::string find(const std::string& n) {
    auto it = parent.find(n);
    if (it == parent.end() || it->second == n) return n;
    std::string r = find(it->second);
    parent[n] = r;
    return r;
  }
  void unite(const std::string& a, const std::string& b) {
    std::string ra = find(a), rb = find(b);
    if (ra != rb) parent[ra] = rb;
  }

  void body(Body& b) {
    for (size_t k = 0; k < b.stmts.size(); ++k) {
      auto* l = std::get_if<SLet>(&b.stmts[k].node);
      if (!l) continue;
      for (Binding& p : l->pats) {
        binding[p.name.s] = &p;
        site[p.name.s] = {&b, k};
      }
      // A loop's memory parameters may be its initial blocks, its body's result blocks
      // and its result blocks; an if's results may be either branch's.
      if (auto* lp = std::get_if<ELoop>(&l->exp.node)) {
        for (size_t j = 0; j < lp->params.size(); ++j) {
          const std::string& pn = lp->params[j].name.s;
          binding[pn] = &lp->params[j];
          loop_param[pn] = {lp, j};
          if (j < lp->inits.size()) unite(pn, lp->inits[j].s);
          if (j < lp->body.results.size()) unite(pn, lp->body.results[j].s);
          if (j < l->pats.size()) unite(pn, l->pats[j].name.s);
          if (j < lp->inits.size()) flows[lp->inits[j].s].push_back(pn);
          if (j < l->pats.size()) {
            flows[pn].push_back(l->pats[j].name.s);
            if (j < lp->body.results.size())
              flows[lp->body.results[j].s].push_back(l->pats[j].name.s);
          }
        }
      } else if (auto* x = std::get_if<EIf>(&l->exp.node)) {
        for (size_t j = 0; j < l->pats.size(); ++j) {
          for (const Body* br : {&x->then_body, &x->else_body})
            if (j < br->results.size()) {
              unite(l->pats[j].name.s, br->results[j].s);
              flows[br->results[j].s].push_back(l->pats[j].name.s);
            }
        }
      }
      if (auto* kx = std::get_if<EKernel>(&l->exp.node)) iters.insert(kx->iter.s);
      if (auto* lx = std::get_if<ELoop>(&l->exp.node)) iters.insert(lx->iter.s);
      each_body(b.stmts[k], [&](Body& in) { body(in); });
    }
  }
};

struct ArrT {
  std::string mem;
  SymLmad lay;
  std::vector<Poly> dims;
  ScalarType elem = ScalarType::I64;
};

/// The facts a statement adds (an `assume`'s condition, a scalar `let`'s definition),
/// kept only when every name in them is an integer (`integer`): a fact over floats or
/// booleans read as integers could be unsatisfiable and prove anything.
/// `dropped` (optional) counts the facts not kept.
std::vector<Formula> stmt_facts(const Stmt& s,
                                const std::function<bool(const std::string&)>& integer,
                                int* dropped = nullptr);
void range_facts(const std::string& iter, const SExpP& bound, std::vector<Formula>& out);

/// Integer `let` definitions of a body that are polynomials, with earlier ones inlined.
void poly_defs(const Body& b, size_t upto, std::map<std::string, Poly>& defs,
               const std::function<bool(const std::string&)>& integer);
bool mentions(const SymLmad& l, const std::string& v);

/// The attempt at one point.
struct Point {
  ScKind kind = ScKind::Update;
  Pos pos;
  Body* B = nullptr;
  size_t P = 0; // index of the point's statement; B->stmts.size() for a kernel result
  std::string x, dest, ysm;
  SymLmad lnew;
  std::vector<Frame> frames; // frames.back().body == B
  // bounds of an update: the destination's shape and the entries or the LMAD slice
  std::vector<Poly> dest_dims;
  std::optional<std::vector<SymEntry>> entries;
  std::optional<SymLmad> inner;
  const std::vector<Entry>* syn_entries = nullptr; // the update's entries as written
  std::vector<SExpP> dest_dims_syn;                // the destination's shape as written
  std::string other;                               // concat: the other operand
  /// The result of one branch of an `if` whose result is the source (B is the branch,
  /// P its end): the position of the result among the branch's results.
  std::optional<size_t> branch_result;
  /// Arrays that will live in the destination too, with their places: the other
  /// branch's result when it was created before the if (its uses count as uses of the
  /// destination).
  std::map<std::string, SymLmad> also;
};

/// One entry of an update's place inside a dimension of `dim` elements: an index in
/// [0, dim); a slice empty, or its first and last element in [0, dim).
Formula entry_inside(const SymEntry& e, const Poly& dim);

/// How a statement may end a run (ordered: the worse last). Resource errors are the
/// interpreter's limits (--max-memory, --max-steps), not the program's meaning: every
/// allocation may run out of memory (the limit counts every live block), and where the
/// source or a stage runs out of resources with an error in the other, funmem-check
/// accepts the pair (only a stage that runs out where the source has results differs).
enum class Fail { None, Resource, Other };
/// The most elements an allocation holds without a resource error under --max-memory's
/// default, and the most an input array may have (interp/data.cpp refuses larger ones).
constexpr int64_t kMaxElements = int64_t{1} << 28;
/// Whether a statement that may fail as `moved` cannot move above one that may fail as
/// `passed`: the run could end with another error. Both must be able to fail otherwise
/// than by running out of resources: an error and a resource error may trade places.
inline bool conflict(Fail moved, Fail passed) {
  return moved == Fail::Other && passed == Fail::Other;
}

/// Statements that create an array in a block of their own, from sizes and values.
bool fresh_creation(const Exp& x);

/// Short-circuiting of one program: the sweep over points, one attempt per point.
class Pass {
public:
  Pass(Program& p, ScReport& rep, const ScOptions& opt) : p_(p), rep_(rep), opt_(opt) {}

  void run();

private:
  Program& p_;
  ScReport& rep_;
  const ScOptions& opt_;
  Index ix_;
  std::map<std::string, std::optional<ArrT>> arr_cache_;
  std::set<std::string> decided_;
  std::optional<std::set<std::string>> names_; // the bound names, when asked for
  /// The may-alias classes (their roots) of blocks holding arrays of several element
  /// types, when asked for.
  std::optional<std::set<std::string>> mixed_blocks_;

  const std::set<std::string>& names();
  std::map<std::string, std::unique_ptr<Solver>> solvers_;

  /// The integer `let` definitions in scope at the current attempt, inlined into the
  /// prover's questions (Z3 answers the side conditions faster without them).
  std::map<std::string, Poly> defs_;

  /// A loop that carries the source in place (6.6.1): `loop (pm : mem) (p : ...) =
  /// (xm, x0) ... in (pm, q)`; its parameter and body result join the source's aliases
  /// and keep the block name pm (which then holds the destination's block).
  struct Carried {
    const ELoop* loop = nullptr;
    size_t d = 0;                               // statement of the point's body
    size_t j = 0;                               // the array's position among the loop's parameters
    std::vector<std::pair<size_t, Acc>> writes; // updates of aliases in the body
  };

  std::vector<Carried> carried_;
  std::map<std::string, std::string> fam_mem_; // aliases that keep their block name

  std::optional<size_t> last_creation_; // the source's creation, once found

  std::map<std::string, ArrT> also_; // arrays that will share the destination (Point::also)

  void set_defs(const std::vector<Frame>& frames, size_t point);

  /// One solver per set of facts, shared by the attempts (its cache too): the attempts
  /// of a chain ask many of the same side conditions.
  Solver& solver_for(std::vector<Formula> facts);

  // ------------------------------------------------------------ lookups

  /// The array type of a name (memory, layout, shape); nullopt for non-arrays. Kept
  /// across sweeps: a proved point rewrites the types of its family, which it erases
  /// (names are unique, and moving a statement changes no type); an in-place scalar map
  /// renames a block in many types and clears it.
  const std::optional<ArrT>& arr(const std::string& n);
  /// Whether the block of array `n` may also hold arrays of another element type (hand-
  /// written FUNMEM): a read of `n` may then meet a cell written as that type.
  bool block_holds_other_types(const std::string& n);
  std::optional<ArrT> arr_of(const std::string& n) const;
  bool same_block(const std::string& a, const std::string& b);

  /// The body whose `alloc` statement binds the memory `mem`; null when `mem` is not
  /// bound by an alloc (a parameter, an if's or a loop's result).
  const Body* alloc_body(const std::string& mem) const;

  /// The names that may hold the block of `m` while an attempt's statements run. A block
  /// made by `alloc` is new: only names it flows into can hold it (not the parameters of
  /// an enclosing loop, which hold the previous iteration's block). Any other block (a
  /// parameter's) may be held by every name of its may-alias class.
  std::set<std::string> block_names(const std::string& m);
  std::string creation_text(const SLet& l, Pos pos);

  // ------------------------------------------------------------ facts

  std::vector<Formula> facts_at(const std::vector<Frame>& fr, size_t point);
  /// The facts of one statement over integer names (stmt_facts with integer()).
  std::vector<Formula> facts_of(const Stmt& s);
  std::set<const Stmt*> dropped_seen_; // statements whose dropped facts are counted

  /// Whether a name is an integer (i32, i64, a counter): only those enter facts.
  bool integer(const std::string& n);
  std::optional<ScalarType> scalar_type(const std::string& n, int depth);
  std::optional<ScalarType> expr_type(const SExp& e, int depth);
  std::map<std::string, std::optional<ScalarType>> types_;
  std::function<bool(const std::string&)> integer_fn() {
    if (opt_.broken_float_facts) return [](const std::string&) { return true; }; // broken
    return [this](const std::string& n) { return integer(n); };
  }

  // ------------------------------------------------------------ access summaries

  /// U: the uses of blocks that may be the destination's (`dest`), by arrays other
  /// than the members of `fam`, in one statement; nested bodies aggregated with EXPAND.
  void uses(const Stmt& s, const std::set<std::string>& dest,
            const std::map<std::string, SymLmad>& fam, Summary& U);

  void result_reads(const Body& body, const std::set<std::string>& dest,
                    const std::map<std::string, SymLmad>& fam, Pos pos, Summary& U);
  /// uses() of statement `d` of a body, each placed at `d` (Acc::at).
  void uses_at(const Stmt& s, size_t d, const std::set<std::string>& dest,
               const std::map<std::string, SymLmad>& fam, Summary& U) {
    const size_t n0 = U.accs.size();
    uses(s, dest, fam, U);
    for (size_t k = n0; k < U.accs.size(); ++k)
      U.accs[k].at = d;
  }

  /// Uses inside a body of a kernel or loop, seen from outside it: names the body
  /// computes differ between iterations, so integer definitions are substituted and an
  /// access still naming a local is undeterminable.
  static void localize(Summary& s, const Body& body);

  /// U^{!=i}: the uses of the other iterations j != i of `iter < bound`.
  Summary others(const Summary& in, const std::string& iter, const SExpP& bound,
                 bool before = true);

  /// 6.6.1 for a loop carrying the source: within an iteration, each write of an alias
  /// against the uses after it; the writes of iteration i against the uses of the later
  /// iterations (U^{>i}); all its writes against the uses after the loop (U). Returns
  /// the writes of all iterations.
  std::vector<Acc> loop_checks(const Carried& cl, const ELoop& x,
                               const std::set<std::string>& dmems,
                               const std::map<std::string, SymLmad>& fam, const Summary& U,
                               const std::vector<Frame>& frames, ScAttempt& a);

  /// Every write must be disjoint from every use; the prover decides, with the facts of
  /// `solver_of(use)` (the facts at the use).
  using SolverOf = std::function<Solver&(const Acc&)>;
  void check(const std::vector<Acc>& W, const Summary& U, const SolverOf& solver_of, Property rule,
             ScAttempt& a);
  void check(const std::vector<Acc>& W, const Summary& U, Solver& solver, Property rule,
             ScAttempt& a) {
    check(
        W, U, [&](const Acc&) -> Solver& { return solver; }, rule, a);
  }
  /// The prover answers over the integers; the interpreters compute addresses modulo
  /// 2^64 (docs/interpreters.md). The two agree on a use against a place inside a block
  /// (at most 2^59 cells) when the use's integer addresses lie inside a block too (its
  /// array is shown inside its block) or within +-2^62 (wrap_free).
  bool in_a_block(const Acc& u, Solver& solver);
  /// Whether the integer addresses of an access lie within +-2^62 (or it is empty), with
  /// the facts of `solver`. Cached per access, with the definitions inlined.
  bool wrap_free(const SymLmad& l, Solver& solver);
  std::map<std::pair<std::string, const Solver*>, bool> wrap_cache_;
  /// What shown_inside asks with: the facts, which arrays exist where it asks (their
  /// dimensions are then not negative), and the loop parameters taken as inside while
  /// their loop's body is shown (induction).
  struct InsideQuery {
    Solver& solver;
    std::function<bool(const std::string&)> exists;
    std::set<std::string> assumed = {};
  };
  /// Whether array `n`'s layout is shown inside its block: a parameter is (the run makes
  /// its block large enough); a view, update, loop parameter, loop or if result is when
  /// what it comes from is; an array an applied point built in a destination is when the
  /// destination is and its place's condition holds (placed_); an array created in a
  /// block of `alloc s` is when its layout lies in [0, s) (or it is empty). Anything else
  /// (created in a block that is a parameter, a loop's or an if's) is not shown.
  bool shown_inside(const std::string& n, InsideQuery& q, int depth = 0);
  /// prove_disjoint with the definitions in scope inlined, counted in the attempt.
  ProveResult disjoint(const SymLmad& l1, const SymLmad& l2, Solver& solver, ScAttempt& a);
  /// The solver of a use at statement `Acc::at` of the point's body: the facts before it.
  SolverOf at_use(const std::vector<Frame>& frames);

  // ------------------------------------------------------------ the sweep

  bool sweep(Body& b, std::vector<Frame>& fr);

  /// The points of one statement; true when one succeeded (the program changed).
  bool points(Body& b, size_t p, std::vector<Frame>& fr, SLet& l, Pos pos);
  static std::string key(const Point& pt);
  bool attempt(Point& pt);
  void reindex();

  /// Statements of the point's body as they were before a hoist, from index `from`.
  struct Hoisted {
    size_t from = 0;
    std::vector<Stmt> stmts;
    std::string what;
  };

  /// Moves the destination's creation (with the allocation and the definitions it
  /// needs) above the source's creation, when it is made between them in the point's
  /// body from nothing the source's creation makes, writes only fresh blocks, and
  /// neither it nor anything it moves past can fail (the run ends as before).
  std::optional<Hoisted> hoist_destination(const Point& pt);

  /// Runs an attempt's analysis and records its outcome and time (a NotCandidate
  /// passes through unrecorded); true when it was proved and applied.
  template <class F>
  bool record(ScAttempt a, std::chrono::steady_clock::time_point t0, F analysis) {
    try {
      analysis(a);
      a.proved = true;
    } catch (const Refused& r) {
      a.property = property_name(r.property);
      a.reason = r.reason;
      a.rule = std::string("refused: ") + a.property + (r.rule ? std::string(": ") + r.rule : "");
    } catch (const Untranslatable& u) {
      a.property = property_name(Property::Summary);
      a.reason = u.what();
      a.rule = std::string("refused: ") + a.property;
    } catch (const SymbolicOverflow& o) {
      a.property = property_name(Property::Summary);
      a.reason = std::string("a question's coefficients do not fit 64 bits: ") + o.what();
      a.rule = std::string("refused: ") + a.property;
    }
    a.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    rep_.attempts.push_back(a);
    return a.proved;
  }

  // ------------------------------------------------------------ one attempt

  /// What an attempt's transformation needs once every check has passed: the family
  /// of the source in the body of the point, the loops that carry it, the definitions
  /// lifted to its creation, and, for an `if` that creates it, the same for each
  /// branch.
  struct Plan {
    Body* B = nullptr;
    size_t c = 0; // the creation
    std::string ysm;
    std::map<std::string, SymLmad> fam;
    std::vector<Carried> carried;
    std::map<std::string, std::string> fam_mem;
    std::set<size_t> lift;
    std::vector<Stmt> checks;      // run-time bounds checks placed at the creation
    std::vector<Plan> branches;    // the creation is an `if`: then, else
    size_t if_result = 0;          // the source's position among the if's results
    std::optional<size_t> outside; // the branch whose result is created before the if
    /// The source's root and why its place lies inside the destination (Placed).
    std::string root;
    std::optional<std::pair<std::string, Formula>> placed;
  };
  /// Arrays an applied point built in a destination: the destination, and the condition
  /// under which the place lies inside it (the bounds, a kernel's range). shown_inside
  /// follows them: such an array is inside its new block when the destination is and
  /// the condition holds.
  std::map<std::string, std::pair<std::string, Formula>> placed_;

  void analyse(Point& pt, ScAttempt& a);

  /// Steps 1 to 7 of an attempt: every check, no change; throws Refused.
  Plan plan_for(const Point& pt, ScAttempt& a);

  /// What the steps of one attempt pass on to each other.
  struct Trace {
    size_t c = 0;                                   // the creation's statement
    std::string root;                               // the array created there
    SymLmad L;                                      // its place in the destination
    std::optional<size_t> if_result;                // an if creates it: its result position
    std::map<std::string, SymLmad> fam;             // aliases up to the point, with places
    std::vector<std::pair<size_t, Acc>> fam_writes; // the aliases' updates
    std::set<size_t> lift;                          // definitions lifted to the creation
    std::vector<Formula> cfacts; // the facts at the creation, with the lifted definitions'
    const SLet& creation(const Point& pt) const { return std::get<SLet>(pt.B->stmts[c].node); }
  };

  /// Steps 1 to 7 at the point's own body (plan_for saves the state of an enclosing if).
  Plan plan_here(const Point& pt, ScAttempt& a);
  void find_creation(const Point& pt, Trace& t);
  void follow_aliases(const Point& pt, Trace& t);
  void check_shared_blocks(const Point& pt, const Trace& t);
  void check_last_use(const Point& pt, const Trace& t);
  void check_needed_names(const Point& pt, Trace& t, ScAttempt& a);
  size_t plan_branches(const Point& pt, const Trace& t, Plan& plan, ScAttempt& a);
  void check_bounds(const Point& pt, Trace& t, size_t bounds_at, Plan& plan, ScAttempt& a);
  /// A branch of the if at `c` returns an array created before it (`outside`, family
  /// `fam`), which is built at L from its creation on, whichever branch runs: in both
  /// branches the family may only be read (element reads, copies, concatenations) and
  /// returned by that branch as the if's result, and every other use of the
  /// destination's blocks there must be disjoint from L.
  void check_outside_uses(const Point& pt, size_t c, size_t if_result, size_t outside,
                          const std::map<std::string, SymLmad>& fam, const SymLmad& L,
                          ScAttempt& a);
  std::vector<Acc> check_non_overlap(const Point& pt, const Trace& t, ScAttempt& a);
  void check_enclosing_kernel(const Point& pt, const Trace& t, const std::vector<Acc>& loop_writes,
                              ScAttempt& a);
  /// The source's place must send distinct elements to distinct places (no zero or
  /// overlapping strides): built there, its elements would overwrite each other.
  void check_injective(const Point& pt, const Trace& t, ScAttempt& a);
  /// Whether L sends distinct elements to distinct cells (nested strides, else SOSI per
  /// dimension); throws Refused under `property` (`what` names L) when not shown, and
  /// returns the proof's text.
  std::string require_injective(const SymLmad& L, const std::string& what, Property property,
                                Solver& solver, ScAttempt& a);
  bool nested_strides(const SymLmad& L, Solver& solver);
  Acc whole_creation(const Point& pt, const Trace& t);
  std::set<std::string> destination_blocks(const Point& pt);

  /// Step 8: new annotations, lifted definitions; the blocks that the rewritten arrays
  /// lived in are collected for removal once every plan is applied.
  void apply(Plan& p, std::set<std::string>& old_mems, ScAttempt& a);

  /// The aliases of the family created by statement `s` (views and updates; nested
  /// bodies add views only) and the writes of updates at top level.
  /// The aliases of a carried loop: the parameter, what the body derives from it (its
  /// updates are the body's writes), the body's result and the loop's result.
  void carried(const SLet& l, const ELoop& x, Carried& cl, std::map<std::string, SymLmad>& fam);
  void family(const Stmt& s, std::map<std::string, SymLmad>& fam, bool nested, size_t d,
              std::vector<std::pair<size_t, Acc>>& writes);

  /// Makes `n` available at the creation (index c of B): nothing to do when it is
  /// defined before; a scalar definition or allocation between creation and point is
  /// lifted (with what it needs) unless it depends on the source.
  void need(Body& B, size_t c, size_t P, const std::map<std::string, SymLmad>& fam,
            const std::string& n, Property property, std::set<size_t>& lift, Solver& solver);

  /// The update's bounds check as `assert` statements at the creation (an index, or a
  /// slice's count and its first and last element, per entry, in the order the update
  /// checks them, each blamed on the entry's position), for the entries the facts do
  /// not show inside. Empty when they can go there; otherwise why not. They can when
  /// every name they use is defined before the creation or can be lifted there, and no
  /// statement they move past can end the run first: then a failing check ends it with
  /// the update's own error before anything is written. `rule`: the refusal's rule when
  /// they cannot.
  std::string runtime_checks(const Point& pt, size_t c, const std::map<std::string, SymLmad>& fam,
                             std::set<size_t>& lift, Solver& solver, std::vector<Stmt>& out,
                             const char*& rule);

  /// Whether a statement may end the run with an error: conservative (an assume, an
  /// integer operation that may overflow or divide by zero, a read not shown inside its
  /// array, a size not shown non-negative, anything not listed).
  Fail may_fail(const Stmt& s, Solver& solver, int depth);
  Fail judge_failure(const Stmt& s, Solver& solver, int depth);
  /// may_fail's answers within one attempt (statements do not move until it is applied).
  std::map<std::pair<const Stmt*, const Solver*>, Fail> fail_cache_;
  bool sexp_may_fail(const SExp& e, Solver& solver);

  /// Whether a scalar expression is of a floating-point type (its operations never fail).
  bool is_float(const SExp& e);

  /// The bounds condition of an update's place: the whole formula, and when the facts
  /// show the place is not empty, the same as polynomials that must be positive.
  struct Bounds {
    Formula whole;
    std::vector<Poly> positive;
  };

  std::optional<Bounds> bounds(const Point& pt, Solver& solver);

  /// Bounds lo <= v <= hi of single names, from facts of the form `v REL e` or
  /// `e REL v` (conjunctions flattened).
  struct VarBounds {
    std::map<std::string, Poly> lo, hi;
  };

  static void collect_bounds(const Formula& f, VarBounds& vb);

  /// d > 0, first with each name the polynomial is affine in and that has a known range
  /// (kernel and loop counters, `assume`d bounds) replaced by the end of its range that
  /// minimises d (the sign of its coefficient decides): Z3's nonlinear arithmetic answers
  /// the question without those names far faster. Sound: d >= the substituted d.
  bool prove_positive(Poly d, const std::vector<Frame>& frames, Solver& solver);
  bool remove_alloc_if_dead(const std::string& m);

  // ------------------------------------------------------------ 6.9

  bool scalar_map(Body& B, size_t p, std::vector<Frame>& fr, SLet& l, EKernel& k, Pos pos);
  void in_place_map(Body& B, size_t p, std::vector<Frame>& fr, SLet& l, EKernel& k,
                    const std::string& xs, const ArrT& xt, const ArrT& yt, ScAttempt& a);
};

} // namespace funmem::sc
