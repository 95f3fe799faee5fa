// The extractor's private header (internal to frontend/extract/): the Extractor class
// that walks one kernel's AST (and every function it calls, inlined) and records its
// accesses, with the helpers its files share. Its members are defined by topic:
// extractor.cpp (the kernel, positions, objects), values.cpp, places.cpp, accesses.cpp,
// calls.cpp, library.cpp, gpuverify.cpp, statements.cpp, loops.cpp and census.cpp.
#pragma once

#include "frontend/cuda/parse.h"
#include "frontend/extract.h"
#include "frontend/model/thread_space.h"

#include <clang/AST/RecordLayout.h>
#include <clang/AST/Stmt.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace funmem::frontend::detail {

using namespace clang;
// funmem has its own Stmt; inside the extractor the names are clang's.
using clang::Decl;
using clang::Expr;
using clang::Stmt;

/// Adds a condition as guards, one per conjunct.
void add_guard(std::vector<Formula>& gs, const Formula& f);
/// gcd of |a| and |b| (0 when both are 0).
int64_t gcd64(int64_t a, int64_t b);
int64_t coefficient_gcd(const Poly& p, int64_t g);
/// Names of functions declared (without a body) in the bundled headers that touch no
/// memory other than their arguments' values: everything there except the ones below.
bool touches_memory_builtin(const std::string& n);
/// GPUVerify's annotation language (the bundled header declares it, marked
/// `annotate("funmem-spec")`): calls that are specifications, not code; nothing under
/// them runs.
bool is_annotation(const FunctionDecl* f);
/// The address-taken functions of `ctx`'s file a call through a pointer to `fn` (a
/// function type) may reach: those of a type that converts to it, or all of them where
/// the file converts function addresses between types; `cache` holds them once found.
std::vector<const FunctionDecl*> indirect_callees(ASTContext& ctx, QualType fn,
                                                  std::optional<FunctionAddresses>& cache);
/// The function type an indirect call calls (its callee is a pointer to it).
QualType called_type(const CallExpr* c);
/// Clang's builtins that do not evaluate their operands (`__builtin_constant_p`).
bool unevaluated_builtin(const FunctionDecl* f);
/// The call operator a lambda's static invoker runs (for a generic lambda, the
/// instantiation with the invoker's parameter types; null if there is none).
const CXXMethodDecl* lambda_operator(const CXXMethodDecl* invoker);

/// What the extractor cannot follow, and where (`at`: the innermost node concerned).
struct NotAffine {
  std::string why;
  const Stmt* at = nullptr;
};

/// The range of an integer type: [lo, hi], hi absent when it passes int64's.
struct TypeRange {
  int64_t lo = 0;
  std::optional<int64_t> hi;
};
TypeRange range_of(const ASTContext& ctx, QualType t);

/// An integer constant's C value (APSInt's signedness: `2147483648u` is positive), or
/// nothing when it does not fit 64 signed bits.
std::optional<int64_t> exact_value(const llvm::APSInt& v);

class Extractor {
public:
  Extractor(ASTContext& ctx, KernelSummary& k, const ExtractOptions& o)
      : ctx_(ctx), sm_(ctx.getSourceManager()), k_(k), broken_(o.broken), modular_(o.modular) {}

  void run(const FunctionDecl* f);

private:
  /// An object of memory: a pointer parameter's target, a `__shared__`, `__device__` or
  /// `__constant__` variable.
  struct Obj {
    std::string name;
    Space space = Space::Global;
  };
  /// A byte address inside an object.
  struct Place {
    Obj obj;
    Poly off;
  };
  /// A pointer's or reference's target: a place in memory, or nullopt for storage private
  /// to the thread (its locals).
  using Target = std::optional<Place>;

  /// funmem-cuda's memory blocks (`fm_mem`, a structure holding the cells' pointer).
  static bool is_fm_mem(QualType t);
  struct Ctx {
    int depth = 0; // enclosing loop bodies and branches
    std::vector<Formula> guards;
    bool exact = true;
    std::vector<LoopCtx> loops;
    bool divergent = false;   // inside an if or a loop body below its top level
    bool returned = false;    // after `if (cond) return;` with a thread-dependent cond
    bool conditional = false; // an operand of ?:, && or || (may not be evaluated)
    bool uniform = false;     // inside a branch whose condition is uniform in the block
  };
  enum class Kind { Read, Write, Atomic };

  ASTContext& ctx_;
  SourceManager& sm_;
  KernelSummary& k_;
  const std::string broken_;
  const std::set<std::string> modular_; // ExtractOptions::modular
  /// Whether the wrap named `key` is taken exactly (modular_) for the value `p`.
  bool modular_ok(const Poly& p, const std::string& key) const;
  std::map<const ValueDecl*, Poly> env_;    // affine integer values
  std::map<const ValueDecl*, Obj> objects_; // variables of memory, by declaration
  std::map<std::string, const ValueDecl*> object_names_;
  std::optional<Obj> dynamic_shared_;                // every `extern __shared__` array: one object
  std::map<const ValueDecl*, Target> ptrs_;          // pointer variables' targets
  std::map<const ValueDecl*, std::string> bad_ptrs_; // pointers it cannot follow, why
  std::map<const ValueDecl*, Target> refs_;          // references' targets
  std::optional<FunctionAddresses> address_taken_;   // see indirect_callees
  std::vector<Target> this_;                         // `this` of the inlined methods
  /// A place inside a structure parameter: its path, and the structure whose members
  /// it names (`whole`: a base class's members are named from the derived class).
  struct ParamPlace {
    std::string path;
    const RecordDecl* whole = nullptr;
  };
  std::vector<std::optional<ParamPlace>> this_path_; // and their param_place
  std::set<const ParmVarDecl*> fixed_params_; // structure parameters the kernel never changes
  std::map<std::string, Obj> field_objects_;  // targets of their pointers, by path
  std::vector<const FunctionDecl*> inlined_;  // the inlined calls, innermost last
  std::map<const ValueDecl*, int> depth_of_;  // the depth of each local's declaration
  std::set<const ValueDecl*> escaped_;        // locals whose address is taken
  std::set<std::string> names_;
  std::map<const Stmt*, std::string> seen_; // nodes accounted for, and how
  std::vector<Poly> bytes_;                 // each access's size in bytes
  std::vector<RangeCheck> pending_;         // range checks of values computed, not yet used
  /// The range checks of each local's and pointer's values (every value it has held:
  /// branches join and loops restore values, so none is ever dropped).
  std::map<const ValueDecl*, std::vector<RangeCheck>> value_checks_;
  std::vector<Poly> offsets_; // each access's byte offset
  int phase_ = 0;
  int grid_phase_ = 0;               // grid barriers (cooperative groups) so far
  std::optional<std::string> value_; // the uniform value of the write being recorded
  std::optional<Poly> stored_;       // the integer it stores (Access::stored)
  std::vector<Formula> stored_if_;   // where that is C's value
  bool jumps_ = false;               // the kernel or a function it calls has a goto
  const Stmt* uneven_ = nullptr;     // a uniform if whose branches have different barriers
  size_t uneven_accesses_ = 0;       // the accesses before its end
  const Stmt* body_ = nullptr;       // the kernel's body
  bool external_globals_ = false;    // the file has `__device__` variables other files see
  int phase_accesses_ = 0;           // accesses since the last barrier
  int units_ = 0;                    // synthetic counters over the units of wide accesses

  Pos pos(SourceLocation l) const;
  std::string text(const Stmt* s) const;
  /// Reports `s` and accounts for every node below it.
  void unsupported(const Stmt* s, const std::string& what);
  void cover(const Stmt* s, const std::string& how);
  void mark(const Stmt* s, const std::string& how) { seen_[s] = how; }
  void use_name(const std::string& n) {
    if (names_.insert(n).second) k_.thread_names.push_back(n);
  }
  /// Runs `f`; what it cannot follow makes `s` unsupported.
  template <class F> void guarded(const Stmt* s, F&& f) {
    try {
      f();
    } catch (const NotAffine& n) {
      const Stmt* at = n.at ? n.at : s;
      k_.unsupported.push_back({pos(at->getBeginLoc()), n.why});
      cover(s, "inside an unsupported construct");
    }
  }

  /// The object of a variable `d` of memory (nullptr: a pointer parameter's target).
  Obj object(const ValueDecl* d, const std::string& n, Space space);

  int64_t bytes(QualType t, const Stmt* at) const;
  /// The declaration that stands for every declaration of `d` (a variable's first).
  static const ValueDecl* canonical(const ValueDecl* d);

  // ------------------------------------------------------------ values

  /// The built-in `threadIdx.x` and its kin as `threadIdx_x`.
  std::optional<std::string> builtin(const Expr* e);
  bool in_header(const Decl* d) const;

  /// A fresh value the extractor does not follow exactly: any integer (between `lo` and
  /// `hi`, inclusive, where they are given), its own in each thread. The value census
  /// records it with the node it stands for (`at`, or the variable `name` at `at`) and why.
  Poly any(const Stmt* at, std::string why, std::optional<int64_t> lo = std::nullopt,
           std::optional<int64_t> hi = std::nullopt);
  Poly any(SourceLocation at, const ValueDecl* name, std::string why);

  /// The integer value of `e0` as a polynomial; what it cannot follow (a value read
  /// from memory, a float converted to an integer, a bit operation, a call without a
  /// body) is a fresh unknown (`any`), which over-approximates it.
  Poly poly(const Expr* e0);
  /// C's integer semantics: `p`, the value of `at` in type `t`, is the mathematical
  /// value only within t's range; the check waits in pending_ until the value is used.
  /// `l REL r` as C compares: a signed operand converted to `unsigned int` is its value
  /// where it is not negative and its value + 2^32 where it is (integers.cpp).
  Formula compare(const Expr* l, Rel rel, const Expr* r);
  /// The range of t as facts on p (k_.type_facts).
  void type_range(const Poly& p, QualType t);
  /// Whether `v` is an unknown without facts added to the rest of `p` (p then takes
  /// every integer).
  bool free_summand(const Poly& p, const std::string& v) const;
  /// A value with an unknown in it becomes an unknown of t's range instead (returned).
  Poly in_range(const Poly& p, QualType t, const Expr* at, bool undefined);
  /// `p << k` in the operation's type `t`, as C++ defines it (integers.cpp).
  Poly shifted_left(const Poly& p, int64_t k, QualType t, const Expr* at);
  /// A conversion of `p` from type `from` to `to` (none when every value of `from` fits).
  Poly converted(const Poly& p, QualType from, QualType to, const Expr* at);
  /// The pending checks, where they are used: under `c`'s guards and loops.
  void flush(const Ctx& c);
  /// Runs `f` (which computes a value) and returns the checks it added to pending_,
  /// which it leaves as it found them.
  template <class F> std::vector<RangeCheck> checks_of(F f) {
    std::vector<RangeCheck> saved = std::move(pending_);
    pending_.clear();
    try {
      f();
    } catch (...) {
      pending_.insert(pending_.begin(), saved.begin(), saved.end());
      throw;
    }
    std::vector<RangeCheck> out = std::move(pending_);
    pending_ = std::move(saved);
    return out;
  }
  /// A use of a local's or pointer's value: its checks are pending again.
  void reuse_checks(const ValueDecl* v) {
    if (auto it = value_checks_.find(v); it != value_checks_.end())
      pending_.insert(pending_.end(), it->second.begin(), it->second.end());
  }
  /// A value stored into a local of type `t` by `op=`, `++` or `--`: computed in `int`
  /// or wider and converted back (modular), or, for a signed type of at least `int`'s
  /// width, overflowing undefined.
  Poly stored(const Poly& p, QualType t, const Expr* at);
  /// Attaches checks to a local's or pointer's value (kept for every later use).
  void attach(const ValueDecl* v, std::vector<RangeCheck> checks) {
    auto& all = value_checks_[v];
    all.insert(all.end(), checks.begin(), checks.end());
  }
  /// An unknown, not negative when `nonneg` (a value of an unsigned type).
  Poly any_of_sign(const Stmt* at, std::string why, bool nonneg);
  /// poly() of a binary operator, and of a call (nullopt: an unknown).
  Poly poly_binary(const BinaryOperator* b, bool nonneg);
  std::optional<Poly> poly_call(const CallExpr* c, bool nonneg);

  std::optional<Formula> formula(const Expr* e0);

  // ------------------------------------------------------------ places

  static Target shifted(const Target& t, const Poly& by);

  /// The target of a pointer-valued expression; evaluates (records the reads of) its
  /// index expressions.
  Target ptr(const Expr* e, const Ctx& c);
  /// The value of a pointer variable (or of a pointer-typed lvalue) read in `e`.
  Target pointer_variable(const Expr* lv, const Ctx& c);
  /// The path of a value inside a structure parameter of the kernel that the kernel never
  /// changes (`q.p`, `q.s.p`, `q.p[4]`, `this->p` in a method called on `q`): the same
  /// in every thread.
  std::optional<std::string> param_path(const Expr* e0);
  std::optional<ParamPlace> param_place(const Expr* e0);

  Poly poly_at(const Expr* e);

  /// The place an lvalue designates (nullopt: the thread's own storage); evaluates its
  /// index expressions.
  Target lvalue(const Expr* e, const Ctx& c);

  /// The byte offset of a derived-to-base conversion (non-virtual bases only).
  int64_t base_offset(const CastExpr* ic);

  // ------------------------------------------------------------ accesses

  void record(const Target& p, const Poly& size, Kind kind, const Ctx& c, const Stmt* at);
  void load(const Expr* lv, const Ctx& c);
  /// Evaluates an lvalue's index expressions without accessing it (`&a[i]`).
  void address(const Expr* lv, const Ctx& c);

  /// Indices in units: per object, the largest unit dividing every access's offset and
  /// size; an access wider than one unit covers its units through a synthetic counter.
  void normalise();

  void census(const FunctionDecl* f);

  // ------------------------------------------------------------ expressions

  /// The context of one branch of `c ? x : y`: inexact, under c (or its negation).
  Ctx branch(const Ctx& c, const AbstractConditionalOperator* co, bool taken);
  /// The context of an operand evaluated exactly where `cond` is `taken` (after `cond`).
  Ctx branch_on(const Ctx& c, const Expr* cond, bool taken);
  Ctx inexact(const Ctx& c) const;

  /// A local whose address is taken (`&x`, a reference bound to it) may change through
  /// the pointer: it is not followed from here on.
  void escape(const Expr* lv);

  /// Evaluates an expression: records its reads, writes and calls.
  void rvalue(const Expr* e, const Ctx& c);

  /// The value of a local after `x op= rhs`, `++x`, `x--`, ... from its value `now`.
  Poly updated(const Poly& now, const Expr* at, const Expr* rhs);

  /// The value of `e` when every thread computes the same one: a constant, or a
  /// polynomial in scalar parameters and launch sizes.
  std::optional<std::string> uniform_value(const Expr* e);
  /// The integer `e` stores, as C's value, when it mentions no unknown (Access::stored).
  std::optional<Poly> stored_value(const Expr* e, std::vector<Formula>& where);

  void assign(const Expr* lhs0, const Expr* rhs, bool compound, const Ctx& c, const Expr* at);
  /// A thread's own variable (not memory): a local or a parameter, not a reference.
  bool local(const ValueDecl* d) const;

  /// `f` has one value in all threads of a block: it mentions no thread index, no
  /// unknown and no loop counter.
  static bool block_uniform(const Formula& f, const Ctx& c);

  void barrier(const Stmt* s, const Ctx& c);

  /// Throws where arguments evaluated in an order C++ leaves unspecified may give
  /// another result in another order (one changes a local variable another uses).
  void argument_order(const Expr* const* args, unsigned n, const Expr* at);
  void call_expr(const CallExpr* call, const Ctx& c);

  /// The pointer a call returns, when its function (with a body, not a method) is one
  /// `return e;` after annotations only: its arguments bound and `e` followed.
  std::optional<Target> returned_pointer(const CallExpr* call, const Ctx& c);

  /// A call through a function pointer: each function of the file of its type whose
  /// address is taken may be the one called, and none may (a branch not known to run).
  void indirect_call(const CallExpr* call, const Ctx& c);

  void builtin_call(const CallExpr* call, const std::string& n, const Ctx& c);
  /// GPUVerify's annotations met as calls (gpuverify.cpp reads them as specifications).
  void annotation_call(const CallExpr* call, const std::string& n, const Ctx& c);
  struct CallModel; // an entry of builtin_call's table (library.cpp)
  /// The library models of builtin_call's table: true when the call is the one modelled.
  bool model_syncthreads(const CallExpr* call, const std::string& n, const Ctx& c);
  bool model_group_sync(const CallExpr* call, const std::string& n, const Ctx& c);
  bool model_fm_element(const CallExpr* call, const std::string& n, const Ctx& c);
  bool model_fm_shared(const CallExpr* call, const std::string& n, const Ctx& c);
  bool model_fm_tile(const CallExpr* call, const std::string& n, const Ctx& c);
  bool model_atomic(const CallExpr* call, const std::string& n, const Ctx& c);
  bool model_memory_copy(const CallExpr* call, const std::string& n, const Ctx& c);
  bool model_curand(const CallExpr* call, const std::string& n, const Ctx& c);
  /// A kernel's precondition: trusted as a launch fact only at the start of the kernel's
  /// own body (not an inlined function's, whose preconditions its callers must meet)
  /// and only over scalar parameters and launch sizes; anything else is not trusted.
  void precondition(const CallExpr* call, const Ctx& c);

  /// An `fm_mem` argument: the block it names.
  Target block(const Expr* e, const Ctx& c);

  /// Binds a call's parameters to its arguments (values, pointers' and references'
  /// targets).
  void bind(const FunctionDecl* d, const std::vector<const Expr*>& args, const Ctx& c);

  /// The root variable of an lvalue whose storage it is part of (`q` of `q.a[2].b`;
  /// the pointer for places reached through one).
  static const Expr* storage_root(const Expr* e);
  /// Whether `body` (or a function it calls) may change the parameter `p`: an
  /// assignment, increment, address or reference into its storage, or any of these
  /// into a method's `this`.
  bool changed(const Stmt* body, const ParmVarDecl* p) const;

  /// A value of type `t` can hold an address (a pointer, a reference, a structure or
  /// array with one).
  bool holds_pointer(QualType t) const;

  void inline_call(const CallExpr* call, const FunctionDecl* f, const Ctx& c);

  /// A construction: `target` is the object constructed (nullopt: the thread's own).
  void construct(const CXXConstructExpr* cc, const Target& target, const Ctx& c);

  /// Variables assigned (or incremented) anywhere in `s`.
  /// Variables that `s` may change: assigned, incremented, or reachable through a
  /// pointer or reference it takes (`&x`, `int& r = x`, `f(x)` with a reference
  /// parameter).
  static void assigned_in(const Stmt* s, std::set<const ValueDecl*>& out);
  /// Before a loop body runs again: what it assigns is not followed from its start on.
  void forget_assigned(const Stmt* body, const std::string& except);

  // ------------------------------------------------------------ statements

  void block_items(const Stmt* s, Ctx c);
  /// The last statement of a block after `if (cond) return a; else`: a return, another
  /// such `if`, or statements.
  void tail(const Stmt* s, Ctx& c);
  /// `if (cond) return [e];`: e (in a device function) is evaluated when cond holds; what
  /// follows runs only when it does not (`c` gets the negated condition).
  void early_return(const IfStmt* i, Ctx& c);
  static bool returns(const Stmt* s);

  /// An if: both branches under their guards, the locals joined after it.
  void if_stmt(const IfStmt* i, const Ctx& c);
  /// A label (reached by a jump from anywhere in the function).
  void label_stmt(const LabelStmt* l, const Ctx& c);
  void stmt(const Stmt* s, const Ctx& c);

  void var_decl(const VarDecl* v, const Ctx& c);

  /// A for loop's increment: `k++`, `k += s` (step s, up), `k--`, `k -= s` (down),
  /// `k >>= 1`, `k /= 2` (geometric), `k <<= 1`, `k *= 2` (geometric, doubling).
  struct LoopStep {
    Poly step = 0;
    bool geometric = false, up = true, doubling = false;
  };
  /// The counter of `for (int k = a, ...; ...)` or `for (k = a; ...)` and its start (the
  /// other declarations of the header are locals, declared here).
  std::pair<const VarDecl*, const Expr*> loop_counter(const ForStmt* f, const Ctx& c);
  /// The loop's condition after GPUVerify's invariants `(__invariant(e), k < n)`, which
  /// go to `invariants`.
  const Expr* loop_condition(const ForStmt* f, std::vector<const CallExpr*>& invariants);
  /// The condition and the increment are evaluated again after every iteration: a name
  /// they use that the body assigns (or whose address is taken) changes them (throws).
  void check_loop_uses(const ForStmt* f, const VarDecl* var, const Expr* cond_expr);
  LoopStep loop_step(const Expr* inc);
  /// Whether `s` assigns, increments or calls (through a pointer, or a function with a
  /// body that does): C's side effects, possible ones of calls included.
  bool side_effects(const Stmt* s, std::set<const FunctionDecl*>& seen) const;
  /// The counter's range of a loop from `a` while `k op b`, stepping `st`; `head`: a
  /// superset of its values at the loop's head (throws when they do not bound it).
  /// The conditions of a summarised loop's counter: its step counts up (or down) by at
  /// least one, and the value that ends the loop lies in its type t (else C wraps it and
  /// the loop runs on). Obligations: never taken modulo, `unknown` where they fail.
  void counter_range(const LoopCtx& l, QualType t, const BinaryOperator* cond, const Poly& b,
                     const LoopStep& st, const Expr* inc);
  /// Whether the counter's update `inc` overflows undefinedly (computed in the
  /// counter's own signed type), not a wrap C defines.
  bool update_undefined(QualType t, const Expr* inc) const;
  /// Every value a summarised loop's condition is evaluated at (the counter's name
  /// free): its start `a` and the values up to the one that ends it (`k op b`).
  Formula header_values(const LoopCtx& l, const LoopStep& st, const Poly& a, const Poly& b) const;
  /// The obligation that `k += s` counts up (s >= 1), where the loop runs.
  void step_up(const LoopCtx& l, const LoopStep& st, const Expr* inc);
  void obligation(const Formula& cond, const Expr* at, bool undefined, std::string what);
  void loop_shape(LoopCtx& l, BinaryOperatorKind op, const Poly& a, const Poly& b,
                  const LoopStep& st, std::optional<Formula>& head);
  /// The body of a summarised loop (false: unsupported, a barrier divergence).
  bool loop_body(const ForStmt* f, const LoopCtx& l, const Ctx& c);
  /// `for (int k = a; k < b; k += s)` and the like.
  void for_stmt(const ForStmt* f, const Ctx& c);

  /// A loop it does not summarise (`while`, `do`, a `for` whose counter it cannot
  /// bound): any number of iterations. What the loop assigns holds any value at the
  /// start of each iteration and after the loop; its accesses are over-approximations
  /// (not exact), under the condition as a guard where it is a formula.
  void any_loop(const Stmt* loop, const Expr* cond, const Expr* inc, const Stmt* body, const Ctx& c,
                bool body_first);

  /// The counter `k` at a loop's head: `a + j*step` for some j with j == 0 or 1 <= j <=
  /// count (`j` is a name of its own, any value the formula allows).
  static Formula at_head(const Poly& k, const Poly& a, const Poly& step, const Poly& count);

  /// The annotation calls of a comma list (`__invariant(a), __invariant(b)`).
  static void annotation_calls(const Expr* e, std::vector<const CallExpr*>& out);

  /// GPUVerify's loop invariants of a summarised loop, checked (never trusted) at the
  /// loop's head: for every value the counter takes there (the start, and every value
  /// after an iteration), under the facts an assertion there would have. An invariant
  /// that uses GPUVerify's predicates or a local the body changes is not checked; nor are
  /// those of geometric loops.
  void loop_invariants(const std::vector<const CallExpr*>& calls, const Stmt* body,
                       const VarDecl* var, const LoopCtx& l, const std::optional<Formula>& head,
                       const Ctx& c);

  /// Whether `e` uses GPUVerify's predicates (`__implies`, `__no_read`, ...): then it is
  /// not a formula the prover checks.
  static bool uses_predicates(const Expr* e);

  /// Calls of GPUVerify's annotations only (`__invariant(a), __invariant(b)`).
  static bool only_annotations(const Expr* e);
  /// `break`, `continue`, `goto` or `return` anywhere in `s`.
  static bool has_jump(const Stmt* s);
  /// A `__syncthreads()` anywhere in `s` (calls it inlines included).
  static bool has_barrier(const Stmt* s);
  /// A node of `s`, or of a function it calls, satisfying `p`.
  template <class P>
  static bool reaches(const Stmt* s, std::set<const FunctionDecl*>& seen, const P& p) {
    if (!s) return false;
    if (p(s)) return true;
    if (const auto* call = dyn_cast<CallExpr>(s))
      if (const FunctionDecl* f = call->getDirectCallee()) {
        const FunctionDecl* d = f->getDefinition();
        if (d && d->hasBody() && seen.insert(d).second && reaches(d->getBody(), seen, p))
          return true;
      }
    for (const Stmt* k : s->children())
      if (reaches(k, seen, p)) return true;
    return false;
  }

  /// Whether a loop with this body is a barrier loop: a barrier among its top-level
  /// statements.
  static bool has_top_barrier(const Stmt* body);
};

} // namespace funmem::frontend::detail
