// Access extraction from CUDA kernels with Clang LibTooling (see extract.h).
#include "frontend/extract.h"
#include "frontend/clang_parse.h"

#include <clang/AST/RecordLayout.h>
#include <clang/AST/Stmt.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#ifndef FUNMEM_CLANG_RESOURCE_DIR
#define FUNMEM_CLANG_RESOURCE_DIR ""
#endif

namespace funmem::frontend {

namespace {

using namespace clang;
// funmem has its own Stmt; inside this file the names are clang's.
using clang::Decl;
using clang::Expr;
using clang::Stmt;

const char* const kBuiltins[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};

/// !f with the negation pushed to the comparisons (De Morgan, flipped relations), so
/// that the prover's facts stay conjunctions of comparisons where they can.
Formula negation(const Formula& f) {
  switch (f.kind) {
  case Formula::Kind::True: {
    Formula no;
    no.kind = Formula::Kind::False;
    return no;
  }
  case Formula::Kind::False:
    return Formula{};
  case Formula::Kind::Cmp: {
    Rel r = f.rel == Rel::Lt   ? Rel::Ge
            : f.rel == Rel::Le ? Rel::Gt
            : f.rel == Rel::Gt ? Rel::Le
            : f.rel == Rel::Ge ? Rel::Lt
            : f.rel == Rel::Eq ? Rel::Ne
                               : Rel::Eq;
    return Formula::cmp(f.lhs, r, f.rhs);
  }
  case Formula::Kind::And:
  case Formula::Kind::Or: {
    std::vector<Formula> ks;
    for (const Formula& k : f.kids)
      ks.push_back(negation(k));
    return f.kind == Formula::Kind::And ? Formula::disj(ks) : Formula::conj(ks);
  }
  case Formula::Kind::Not:
    return f.kids.front();
  }
  return Formula::negate(f);
}

bool mentions_name(const Poly& p, const std::string& n) {
  for (const std::string& v : p.free_vars())
    if (v == n) return true;
  return false;
}

/// Adds a condition as guards, one per conjunct.
void add_guard(std::vector<Formula>& gs, const Formula& f) {
  if (f.kind == Formula::Kind::And) {
    for (const Formula& k : f.kids)
      add_guard(gs, k);
    return;
  }
  gs.push_back(f);
}

/// What the extractor cannot follow, and where (`at`: the innermost node concerned).
struct NotAffine {
  std::string why;
  const Stmt* at = nullptr;
};

/// gcd of |a| and |b| (0 when both are 0).
int64_t gcd64(int64_t a, int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

int64_t coefficient_gcd(const Poly& p, int64_t g) {
  for (const auto& [m, c] : p.terms())
    g = gcd64(g, c);
  return g;
}

/// Names of functions declared (without a body) in the bundled headers that touch no
/// memory other than their arguments' values: everything there except the ones below.
bool touches_memory_builtin(const std::string& n) {
  return n.rfind("atomic", 0) == 0 || n == "memcpy" || n == "memset" || n == "fm_ld" ||
         n == "fm_st" || n == "fm_ld_tile" || n == "fm_ld_tile2" || n == "fm_sld" ||
         n == "fm_sst" || n == "__syncthreads";
}

/// GPUVerify's annotation language (the bundled header declares it, marked
/// `annotate("funmem-spec")`): calls that are specifications, not code; nothing under
/// them runs.
bool is_annotation(const FunctionDecl* f) {
  if (!f || f->doesThisDeclarationHaveABody()) return false;
  for (const auto* a : f->specific_attrs<AnnotateAttr>())
    if (a->getAnnotation() == "funmem-spec") return true;
  return false;
}

/// See address_taken_functions (clang_parse.h).
class AddressTaken : public RecursiveASTVisitor<AddressTaken> {
public:
  std::vector<const FunctionDecl*> functions;

  // Visited before its children: the callee's reference is known when it is reached.
  bool VisitCallExpr(CallExpr* c) {
    callees_.insert(c->getCallee()->IgnoreParenImpCasts());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr* d) {
    const auto* f = dyn_cast<FunctionDecl>(d->getDecl());
    if (!f || callees_.count(d)) return true;
    // Without a body too (a math function, one defined elsewhere): a call of it is then
    // modelled as such calls are.
    const FunctionDecl* def = f->getDefinition() ? f->getDefinition() : f->getCanonicalDecl();
    if (std::find(functions.begin(), functions.end(), def) == functions.end())
      functions.push_back(def);
    return true;
  }

private:
  std::set<const Expr*> callees_;
};

/// The address-taken functions of `ctx`'s file whose type is `fn` (a function type);
/// `cache` holds them all once found.
std::vector<const FunctionDecl*>
indirect_callees(ASTContext& ctx, QualType fn,
                 std::optional<std::vector<const FunctionDecl*>>& cache) {
  if (!cache) cache = address_taken_functions(ctx);
  std::vector<const FunctionDecl*> out;
  for (const FunctionDecl* f : *cache)
    if (ctx.hasSameType(f->getType(), fn)) out.push_back(f);
  return out;
}

/// The function type an indirect call calls (its callee is a pointer to it).
QualType called_type(const CallExpr* c) {
  QualType t = c->getCallee()->getType();
  return t->isPointerType() ? t->getPointeeType() : t;
}

/// The census (docs/extract.md): every node of a kernel, and of every function it
/// reaches, that can touch memory, found by syntax alone: subscripts, dereferences,
/// member accesses, references to variables with static storage or of reference type,
/// `this`, calls and constructions, inline assembly, new and delete.
class Census : public RecursiveASTVisitor<Census> {
public:
  explicit Census(ASTContext& ctx) : ctx_(ctx) {}
  std::vector<const Stmt*> nodes;

  void run(const FunctionDecl* kernel) {
    todo_.push_back(kernel);
    functions_.insert(kernel);
    while (!todo_.empty()) {
      const FunctionDecl* f = todo_.back();
      todo_.pop_back();
      if (const auto* c = dyn_cast<CXXConstructorDecl>(f))
        for (const CXXCtorInitializer* i : c->inits())
          if (i->isWritten()) TraverseStmt(i->getInit());
      TraverseStmt(f->getBody());
    }
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr* e) { return add(e); }
  bool VisitUnaryOperator(UnaryOperator* u) { return u->getOpcode() == UO_Deref ? add(u) : true; }
  bool VisitMemberExpr(MemberExpr* m) { return add(m); }
  bool VisitDeclRefExpr(DeclRefExpr* d) {
    const auto* v = dyn_cast<VarDecl>(d->getDecl());
    if (v &&
        (v->hasGlobalStorage() || v->getType()->isReferenceType() || v->hasAttr<CUDASharedAttr>()))
      add(d);
    return true;
  }
  bool VisitCXXThisExpr(CXXThisExpr* t) { return add(t); }
  bool VisitCallExpr(CallExpr* c) {
    if (const FunctionDecl* f = c->getDirectCallee())
      reach(f);
    else
      for (const FunctionDecl* g : indirect_callees(ctx_, called_type(c), address_taken_))
        reach(g);
    return add(c);
  }
  // An annotation's arguments never run: the call is the node, nothing under it.
  bool TraverseCallExpr(CallExpr* c) {
    if (is_annotation(c->getDirectCallee())) return add(c);
    return RecursiveASTVisitor<Census>::TraverseCallExpr(c);
  }
  bool VisitCXXConstructExpr(CXXConstructExpr* c) {
    reach(c->getConstructor());
    return add(c);
  }
  bool VisitAsmStmt(AsmStmt* s) { return add(s); }
  bool VisitCXXNewExpr(CXXNewExpr* e) { return add(e); }
  bool VisitCXXDeleteExpr(CXXDeleteExpr* e) { return add(e); }

private:
  ASTContext& ctx_; // for the functions an indirect call may reach
  std::optional<std::vector<const FunctionDecl*>> address_taken_;
  std::set<const FunctionDecl*> functions_;
  std::vector<const FunctionDecl*> todo_;
  bool add(const Stmt* s) {
    nodes.push_back(s);
    return true;
  }
  void reach(const FunctionDecl* f) {
    // Trivial special members are modelled as whole-object copies, not followed.
    if (f && f->isTrivial()) return;
    const FunctionDecl* d = f ? f->getDefinition() : nullptr;
    if (d && d->hasBody() && functions_.insert(d).second) todo_.push_back(d);
  }
};

class Extractor {
public:
  Extractor(ASTContext& ctx, KernelSummary& k, const ExtractOptions& o)
      : ctx_(ctx), sm_(ctx.getSourceManager()), k_(k), broken_(o.broken) {}

  void run(const FunctionDecl* f) {
    k_.name = kernel_name(f); // an instantiation with its arguments: `scale<64>`
    k_.pos = pos(f->getLocation());
    for (const ParmVarDecl* p : f->parameters()) {
      std::string n = p->getNameAsString();
      QualType t = p->getType();
      if ((t->isPointerType() && !t->getPointeeType()->isFunctionType()) || is_fm_mem(t)) {
        k_.pointer_params.push_back(n);
        // The parameter is the thread's own variable; its target is the object.
        ptrs_[p] = Place{object(nullptr, n, Space::Global), Poly(0)};
      } else if (t->isIntegerType()) {
        k_.scalar_params.push_back(n);
        env_[p] = Poly::var(n);
      } else if (t->isReferenceType()) {
        unsupported(f->getBody(), "the reference parameter '" + n + "' of a kernel");
      } else if (t->isRecordType() && holds_pointer(t) && !changed(f->getBody(), p)) {
        fixed_params_.insert(p);
      }
    }
    body_ = f->getBody();
    for (const Decl* d : ctx_.getTranslationUnitDecl()->decls())
      if (const auto* v = dyn_cast<VarDecl>(d); v && !in_header(v) && v->hasGlobalStorage() &&
                                                v->hasAttr<CUDADeviceAttr>() &&
                                                v->hasExternalFormalLinkage())
        external_globals_ = true;
    std::set<const FunctionDecl*> seen;
    jumps_ = reaches(f->getBody(), seen, [](const Stmt* x) { return isa<GotoStmt>(x); });
    Ctx c;
    block_items(f->getBody(), c);
    if (uneven_ && k_.accesses.size() > uneven_accesses_)
      unsupported(uneven_, "__syncthreads() in one branch of a uniform condition and not as "
                           "often in the other (the barrier intervals after it depend on it)");
    normalise();
    census(f);
  }

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
  static bool is_fm_mem(QualType t) {
    const auto* r = t.getNonReferenceType()->getAsRecordDecl();
    return r && r->getName() == "fm_mem";
  }
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
  std::map<const ValueDecl*, Poly> env_;    // affine integer values
  std::map<const ValueDecl*, Obj> objects_; // variables of memory, by declaration
  std::map<std::string, const ValueDecl*> object_names_;
  std::map<const ValueDecl*, Target> ptrs_;                       // pointer variables' targets
  std::map<const ValueDecl*, std::string> bad_ptrs_;              // pointers it cannot follow, why
  std::map<const ValueDecl*, Target> refs_;                       // references' targets
  std::optional<std::vector<const FunctionDecl*>> address_taken_; // see indirect_callees
  std::vector<Target> this_;                                      // `this` of the inlined methods
  std::vector<std::optional<std::string>> this_path_;             // and their param_path
  std::set<const ParmVarDecl*> fixed_params_; // structure parameters the kernel never changes
  std::map<std::string, Obj> field_objects_;  // targets of their pointers, by path
  std::vector<const FunctionDecl*> inlined_;  // the inlined calls, innermost last
  std::map<const ValueDecl*, int> depth_of_;  // the depth of each local's declaration
  std::set<const ValueDecl*> escaped_;        // locals whose address is taken
  std::set<std::string> names_;
  std::map<const Stmt*, std::string> seen_; // nodes accounted for, and how
  std::vector<Poly> bytes_;                 // each access's size in bytes
  std::vector<Poly> offsets_;               // each access's byte offset
  int phase_ = 0;
  int grid_phase_ = 0;               // grid barriers (cooperative groups) so far
  std::optional<std::string> value_; // the uniform value of the write being recorded
  bool jumps_ = false;               // the kernel or a function it calls has a goto
  const Stmt* uneven_ = nullptr;     // a uniform if whose branches have different barriers
  size_t uneven_accesses_ = 0;       // the accesses before its end
  const Stmt* body_ = nullptr;       // the kernel's body
  bool external_globals_ = false;    // the file has `__device__` variables other files see
  int phase_accesses_ = 0;           // accesses since the last barrier
  int units_ = 0;                    // synthetic counters over the units of wide accesses

  Pos pos(SourceLocation l) const {
    PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(l));
    if (p.isInvalid()) return Pos{};
    return Pos{static_cast<int>(p.getLine()), static_cast<int>(p.getColumn())};
  }
  std::string text(const Stmt* s) const {
    return Lexer::getSourceText(CharSourceRange::getTokenRange(s->getSourceRange()), sm_,
                                ctx_.getLangOpts())
        .str();
  }
  /// Reports `s` and accounts for every node below it.
  void unsupported(const Stmt* s, const std::string& what) {
    k_.unsupported.push_back({pos(s->getBeginLoc()), what});
    cover(s, "inside an unsupported construct");
  }
  void cover(const Stmt* s, const std::string& how) {
    if (!s) return;
    seen_.emplace(s, how);
    for (const Stmt* c : s->children())
      cover(c, how);
  }
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
  Obj object(const ValueDecl* d, const std::string& n, Space space) {
    if (auto it = objects_.find(d); d && it != objects_.end()) return it->second;
    std::string name = n;
    for (int k = 2; object_names_.count(name); ++k)
      name = n + "#" + std::to_string(k);
    object_names_[name] = d;
    Obj o{name, space};
    if (d) objects_[d] = o;
    if (d) {
      if (space == Space::Shared)
        k_.shared_arrays.push_back(name);
      else
        k_.global_vars.push_back(name);
    }
    return o;
  }

  int64_t bytes(QualType t, const Stmt* at) const {
    if (t->isIncompleteType() || t->isDependentType() || t->isFunctionType())
      throw NotAffine{"a type without a size ('" + t.getAsString() + "')", at};
    return ctx_.getTypeSizeInChars(t).getQuantity();
  }

  // ------------------------------------------------------------ values

  /// The built-in `threadIdx.x` and its kin as `threadIdx_x`.
  std::optional<std::string> builtin(const Expr* e) {
    const auto* m = dyn_cast<MemberExpr>(e->IgnoreParenImpCasts());
    if (!m) return std::nullopt;
    const auto* d = dyn_cast<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts());
    if (!d || !in_header(d->getDecl())) return std::nullopt;
    std::string base = d->getDecl()->getNameAsString();
    for (const char* b : kBuiltins)
      if (base == b) {
        mark(m, "built-in index (no memory)");
        mark(d, "built-in index (no memory)");
        return base + "_" + m->getMemberDecl()->getNameAsString();
      }
    return std::nullopt;
  }
  bool in_header(const Decl* d) const {
    std::string file = sm_.getFilename(sm_.getSpellingLoc(d->getLocation())).str();
    return file == kHeaderPath || file == kRtModelPath;
  }

  /// A fresh value the extractor does not follow: any integer, its own in each thread.
  Poly any() {
    std::string n = "fm_any_" + std::to_string(k_.unknowns.size());
    k_.unknowns.push_back(n);
    return Poly::var(n);
  }
  /// The same, between `lo` and `hi` (inclusive) where they are given.
  Poly any(std::optional<int64_t> lo, std::optional<int64_t> hi = std::nullopt) {
    Poly v = any();
    if (lo) k_.unknown_facts.push_back(ge(v, Poly(*lo)));
    if (hi) k_.unknown_facts.push_back(le(v, Poly(*hi)));
    return v;
  }

  /// The integer value of `e0` as a polynomial; what it cannot follow (a value read
  /// from memory, a float converted to an integer, a bit operation, a call without a
  /// body) is a fresh unknown (`any`), which over-approximates it.
  Poly poly(const Expr* e0) {
    const Expr* e = e0->IgnoreParenImpCasts();
    // An unknown of an unsigned type (read and used as one) is not negative.
    auto any_value = [&] {
      return any(e0->getType()->isUnsignedIntegerType() && e->getType()->isUnsignedIntegerType()
                     ? std::optional<int64_t>(0)
                     : std::nullopt);
    };
    if (const auto* c = dyn_cast<ExplicitCastExpr>(e)) return poly(c->getSubExpr());
    // A template's argument in an instantiation: its value.
    if (const auto* t = dyn_cast<SubstNonTypeTemplateParmExpr>(e)) return poly(t->getReplacement());
    if (auto b = builtin(e)) {
      use_name(*b);
      return Poly::var(*b);
    }
    // Floats (and anything else that is not an integer) converted to an integer.
    if (!e->getType()->isIntegralOrUnscopedEnumerationType()) return any();
    if (const auto* l = dyn_cast<IntegerLiteral>(e)) return Poly(l->getValue().getSExtValue());
    if (const auto* l = dyn_cast<CharacterLiteral>(e)) return Poly(int64_t{l->getValue()});
    if (const auto* l = dyn_cast<CXXBoolLiteralExpr>(e)) return Poly(l->getValue() ? 1 : 0);
    if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
      const ValueDecl* v = d->getDecl();
      if (auto it = env_.find(v); it != env_.end()) return it->second;
      if (const auto* ec = dyn_cast<EnumConstantDecl>(v))
        return Poly(ec->getInitVal().getSExtValue());
      if (const auto* vd = dyn_cast<VarDecl>(v); vd && vd->getType().isConstQualified())
        if (const Expr* init = vd->getInit())
          if (auto c = init->getIntegerConstantExpr(ctx_)) return Poly(c->getSExtValue());
      // A local whose address is taken, a variable of memory: read afresh each time.
      return any_value();
    }
    if (const auto* b = dyn_cast<BinaryOperator>(e)) {
      switch (b->getOpcode()) {
      case BO_Add:
        return poly(b->getLHS()) + poly(b->getRHS());
      case BO_Sub:
        return poly(b->getLHS()) - poly(b->getRHS());
      case BO_Mul:
        return poly(b->getLHS()) * poly(b->getRHS());
      case BO_Div:
        return Poly::div(poly(b->getLHS()), poly(b->getRHS()));
      case BO_Rem:
        return Poly::mod(poly(b->getLHS()), poly(b->getRHS()));
      case BO_Shl:
      case BO_Shr: {
        auto c = poly(b->getRHS()).constant();
        if (!c || *c < 0 || *c > 30) return any_value();
        Poly p = poly(b->getLHS());
        return b->getOpcode() == BO_Shl ? p * Poly(int64_t{1} << *c)
                                        : Poly::div(p, Poly(int64_t{1} << *c));
      }
      case BO_Comma:
        return poly(b->getRHS());
      case BO_And: {
        // A mask by a constant c >= 0: between 0 and c.
        for (const Expr* side : {b->getLHS(), b->getRHS()})
          if (auto c = side->getIntegerConstantExpr(ctx_); c && !c->isNegative()) {
            int64_t m = c->getExtValue();
            Poly v = any(0, m);
            // A mask 2^k - 1 of a value x >= 0 is x mod 2^k.
            if (m >= 0 && m < (int64_t{1} << 30) && (m & (m + 1)) == 0) {
              Poly x = poly(side == b->getLHS() ? b->getRHS() : b->getLHS());
              k_.unknown_facts.push_back(
                  Formula::disj({lt(x, Poly(0)), eq(v, Poly::mod(x, Poly(m + 1)))}));
            }
            return v;
          }
        return any_value();
      }
      default:
        return any_value();
      }
    }
    if (const auto* u = dyn_cast<UnaryOperator>(e)) {
      if (u->getOpcode() == UO_Minus) return -poly(u->getSubExpr());
      if (u->getOpcode() == UO_Plus) return poly(u->getSubExpr());
    }
    if (isa<CXXScalarValueInitExpr>(e)) return Poly(0);
    // `c ? a : b`: an unknown that is a where c holds and b elsewhere (a fact the
    // accesses' formula question uses).
    if (const auto* co = dyn_cast<ConditionalOperator>(e)) {
      Poly v = any_value();
      if (auto f = formula(co->getCond())) {
        Poly a = poly(co->getTrueExpr()), b = poly(co->getFalseExpr());
        k_.unknown_facts.push_back(Formula::disj(
            {Formula::conj({*f, eq(v, a)}), Formula::conj({negation(*f), eq(v, b)})}));
      }
      return v;
    }
    if (const auto* c = dyn_cast<CallExpr>(e)) {
      if (const FunctionDecl* f = c->getDirectCallee()) {
        std::string n = f->getNameAsString();
        unsigned args = c->getNumArgs();
        auto arg = [&](unsigned k) { return poly(c->getArg(k)); };
        if (in_header(f)) {
          if ((n == "min" || n == "fm_min") && args == 2) return Poly::min(arg(0), arg(1));
          if ((n == "max" || n == "fm_max") && args == 2) return Poly::max(arg(0), arg(1));
          // funmem-cuda's checked arithmetic (the last arguments are check sites): the
          // value is the mathematical one whenever the run does not stop with an error.
          if (n == "fm_add" && args == 3) return arg(0) + arg(1);
          if (n == "fm_sub" && args == 3) return arg(0) - arg(1);
          if (n == "fm_mul" && args == 3) return arg(0) * arg(1);
          if (n == "fm_neg" && args == 2) return -arg(0);
          if ((n == "fm_bound" || n == "fm_i32") && args == 2) return arg(0);
          // __mul24(a, b): a * b when both fit in 24 bits (signed), else some value.
          if ((n == "__mul24" || n == "__umul24") && args == 2) {
            Poly a = arg(0), b = arg(1), v = any_value();
            const Poly lo(-(int64_t{1} << 23)), hi(int64_t{1} << 23);
            k_.unknown_facts.push_back(
                Formula::disj({lt(a, lo), ge(a, hi), lt(b, lo), ge(b, hi), eq(v, a * b)}));
            return v;
          }
          if (n == "fm_div" && args == 4) return Poly::div(arg(0), arg(1));
          if (n == "fm_mod" && args == 4) return Poly::mod(arg(0), arg(1));
        }
        // A device function `return e;` with integer parameters: e with the arguments.
        if (const FunctionDecl* d = f->getDefinition(); d && !in_header(d) && d->hasBody())
          if (const auto* body = dyn_cast<CompoundStmt>(d->getBody()); body && body->size() == 1)
            if (const auto* r = dyn_cast<ReturnStmt>(body->body_front()); r && r->getRetValue()) {
              bool integers = true;
              for (unsigned i = 0; i < d->getNumParams() && i < args; ++i)
                integers = integers && d->getParamDecl(i)->getType()->isIntegerType();
              if (integers) {
                std::map<const ValueDecl*, Poly> saved = env_;
                for (unsigned i = 0; i < d->getNumParams() && i < args; ++i)
                  env_[d->getParamDecl(i)] = arg(i);
                Poly v = poly(r->getRetValue());
                env_ = std::move(saved);
                return v;
              }
            }
      }
    }
    return any_value();
  }

  std::optional<Formula> formula(const Expr* e0) {
    const Expr* e = e0->IgnoreParenImpCasts();
    try {
      if (const auto* b = dyn_cast<BinaryOperator>(e)) {
        switch (b->getOpcode()) {
        case BO_Comma:
          return formula(b->getRHS());
        case BO_LAnd:
        case BO_LOr: {
          auto l = formula(b->getLHS()), r = formula(b->getRHS());
          if (!l || !r) return std::nullopt;
          return b->getOpcode() == BO_LAnd ? Formula::conj({*l, *r}) : Formula::disj({*l, *r});
        }
        case BO_LT:
          return Formula::cmp(poly(b->getLHS()), Rel::Lt, poly(b->getRHS()));
        case BO_LE:
          return Formula::cmp(poly(b->getLHS()), Rel::Le, poly(b->getRHS()));
        case BO_GT:
          return Formula::cmp(poly(b->getLHS()), Rel::Gt, poly(b->getRHS()));
        case BO_GE:
          return Formula::cmp(poly(b->getLHS()), Rel::Ge, poly(b->getRHS()));
        case BO_EQ:
          return Formula::cmp(poly(b->getLHS()), Rel::Eq, poly(b->getRHS()));
        case BO_NE:
          return Formula::cmp(poly(b->getLHS()), Rel::Ne, poly(b->getRHS()));
        default:
          return std::nullopt;
        }
      }
      if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_LNot) {
        auto f = formula(u->getSubExpr());
        if (!f) return std::nullopt;
        return negation(*f);
      }
      // `if (x)`: x != 0.
      if (e->getType()->isIntegralOrUnscopedEnumerationType())
        return Formula::cmp(poly(e), Rel::Ne, Poly(0));
    } catch (const NotAffine&) {
      return std::nullopt;
    }
    return std::nullopt;
  }

  // ------------------------------------------------------------ places

  static Target shifted(const Target& t, const Poly& by) {
    if (!t) return std::nullopt;
    return Place{t->obj, t->off + by};
  }

  /// The target of a pointer-valued expression; evaluates (records the reads of) its
  /// index expressions.
  Target ptr(const Expr* e, const Ctx& c) {
    mark(e, "address");
    if (const auto* p = dyn_cast<ParenExpr>(e)) return ptr(p->getSubExpr(), c);
    if (const auto* ic = dyn_cast<CastExpr>(e)) {
      switch (ic->getCastKind()) {
      case CK_ArrayToPointerDecay:
        return lvalue(ic->getSubExpr(), c);
      case CK_LValueToRValue:
        return pointer_variable(ic->getSubExpr(), c);
      case CK_NoOp:
      case CK_BitCast:
        if (ic->getSubExpr()->getType()->isPointerType() ||
            ic->getSubExpr()->getType()->isArrayType())
          return ptr(ic->getSubExpr(), c);
        break;
      default:
        break;
      }
      throw NotAffine{"a pointer made by the conversion '" + text(e) + "'", e};
    }
    if (const auto* u = dyn_cast<UnaryOperator>(e)) {
      if (u->getOpcode() == UO_AddrOf) {
        escape(u->getSubExpr());
        return lvalue(u->getSubExpr(), c);
      }
      if (u->isIncrementDecrementOp()) throw NotAffine{"a pointer walked by '" + text(e) + "'", e};
    }
    if (const auto* b = dyn_cast<BinaryOperator>(e)) {
      if (b->getOpcode() == BO_Comma) {
        rvalue(b->getLHS(), c);
        return ptr(b->getRHS(), c);
      }
      if (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub) {
        const Expr* p = b->getLHS();
        const Expr* i = b->getRHS();
        if (!p->getType()->isPointerType()) std::swap(p, i);
        Target base = ptr(p, c);
        rvalue(i, c);
        Poly off = poly_at(i) * Poly(bytes(p->getType()->getPointeeType(), e));
        return shifted(base, b->getOpcode() == BO_Add ? off : -off);
      }
    }
    if (isa<CXXThisExpr>(e)) {
      if (this_.empty()) throw NotAffine{"'this' outside an inlined method", e};
      return this_.back();
    }
    if (isa<ConditionalOperator>(e) || isa<BinaryConditionalOperator>(e))
      throw NotAffine{"a pointer chosen by '?:' ('" + text(e) + "')", e};
    if (const auto* call = dyn_cast<CallExpr>(e)) {
      if (auto t = returned_pointer(call, c)) return *t;
      throw NotAffine{"a pointer returned by the call '" + text(e) + "'", e};
    }
    throw NotAffine{"the pointer expression '" + text(e) + "'", e};
  }
  /// The value of a pointer variable (or of a pointer-typed lvalue) read in `e`.
  Target pointer_variable(const Expr* lv, const Ctx& c) {
    const Expr* e = lv->IgnoreParens();
    mark(e, "pointer value");
    if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
      const ValueDecl* v = d->getDecl();
      if (auto it = ptrs_.find(v); it != ptrs_.end()) return it->second;
      if (auto it = bad_ptrs_.find(v); it != bad_ptrs_.end()) throw NotAffine{it->second, e};
      if (auto it = refs_.find(v); it != refs_.end())
        throw NotAffine{"a pointer loaded from memory (through the reference '" +
                            v->getNameAsString() + "')",
                        e};
      throw NotAffine{"the pointer '" + v->getNameAsString() + "', whose target it cannot follow",
                      e};
    }
    if (isa<AbstractConditionalOperator>(e))
      throw NotAffine{"a pointer chosen by '?:' ('" + text(e) + "')", e};
    // A pointer in a structure parameter the kernel never changes: a pointer
    // parameter of its own.
    if (auto path = param_path(e)) {
      cover(e, "pointer value (in a structure parameter)");
      auto it = field_objects_.find(*path);
      if (it == field_objects_.end()) {
        it = field_objects_.emplace(*path, object(nullptr, *path, Space::Global)).first;
        k_.pointer_params.push_back(it->second.name);
      }
      return Place{it->second, Poly(0)};
    }
    // A pointer stored in memory or in a structure: its target is unknown.
    address(e, c);
    throw NotAffine{"a pointer loaded from memory ('" + text(e) + "')", e};
  }
  /// The path of a value inside a structure parameter of the kernel that the kernel never
  /// changes (`q.p`, `q.s.p`, `q.p[4]`, `this->p` in a method called on `q`): the same
  /// in every thread.
  std::optional<std::string> param_path(const Expr* e0) {
    const Expr* e = e0->IgnoreParenImpCasts();
    if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
      if (const auto* p = dyn_cast<ParmVarDecl>(d->getDecl()); p && fixed_params_.count(p))
        return p->getNameAsString();
      return std::nullopt;
    }
    if (isa<CXXThisExpr>(e)) return this_path_.empty() ? std::nullopt : this_path_.back();
    if (const auto* m = dyn_cast<MemberExpr>(e)) {
      if (m->isArrow() && !isa<CXXThisExpr>(m->getBase()->IgnoreParenImpCasts()))
        return std::nullopt;
      if (!isa<FieldDecl>(m->getMemberDecl())) return std::nullopt;
      auto base = param_path(m->getBase());
      if (!base) return std::nullopt;
      return *base + "." + m->getMemberDecl()->getNameAsString();
    }
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(e)) {
      const Expr* base = a->getBase()->IgnoreParenImpCasts();
      auto k = a->getIdx()->getIntegerConstantExpr(ctx_);
      if (!base->getType()->isArrayType() || !k) return std::nullopt;
      auto b = param_path(base);
      if (!b) return std::nullopt;
      return *b + "[" + std::to_string(k->getSExtValue()) + "]";
    }
    return std::nullopt;
  }

  Poly poly_at(const Expr* e) {
    try {
      return poly(e);
    } catch (NotAffine& n) {
      if (!n.at) n.at = e;
      n.why = "the index '" + text(e) + "': " + n.why;
      throw;
    }
  }

  /// The place an lvalue designates (nullopt: the thread's own storage); evaluates its
  /// index expressions.
  Target lvalue(const Expr* e, const Ctx& c) {
    mark(e, "place");
    if (const auto* p = dyn_cast<ParenExpr>(e)) return lvalue(p->getSubExpr(), c);
    if (const auto* ic = dyn_cast<ImplicitCastExpr>(e); ic && ic->getCastKind() == CK_NoOp)
      return lvalue(ic->getSubExpr(), c);
    if (const auto* ic = dyn_cast<ImplicitCastExpr>(e);
        ic &&
        (ic->getCastKind() == CK_UncheckedDerivedToBase || ic->getCastKind() == CK_DerivedToBase))
      return shifted(lvalue(ic->getSubExpr(), c), Poly(base_offset(ic)));
    if (builtin(e)) return std::nullopt;
    if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
      const auto* v = dyn_cast<VarDecl>(d->getDecl());
      if (!v) throw NotAffine{"the lvalue '" + text(e) + "'", e};
      if (auto it = refs_.find(v); it != refs_.end()) {
        mark(e, "reference");
        return it->second;
      }
      if (v->getType()->isReferenceType())
        throw NotAffine{"the reference '" + v->getNameAsString() +
                            "', whose target it cannot "
                            "follow",
                        e};
      if (auto it = objects_.find(v); it != objects_.end()) return Place{it->second, Poly(0)};
      if (v->hasAttr<CUDASharedAttr>())
        return Place{object(v, v->getNameAsString(), Space::Shared), Poly(0)};
      if (v->hasGlobalStorage()) {
        if (v->getType().isConstQualified() && !v->hasAttr<CUDADeviceAttr>() &&
            !v->hasAttr<CUDAConstantAttr>())
          return std::nullopt; // a constant (folded by the compiler)
        return Place{object(v, v->getNameAsString(), Space::Global), Poly(0)};
      }
      mark(e, "private (a local)");
      return std::nullopt;
    }
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(e)) {
      Target base = ptr(a->getBase(), c);
      rvalue(a->getIdx(), c);
      return shifted(base, poly_at(a->getIdx()) * Poly(bytes(e->getType(), e)));
    }
    if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Deref)
      return ptr(u->getSubExpr(), c);
    if (const auto* m = dyn_cast<MemberExpr>(e)) {
      if (const auto* vd = dyn_cast<VarDecl>(m->getMemberDecl())) { // a static member
        if (!m->isArrow()) address(m->getBase(), c);
        return Place{object(vd, vd->getNameAsString(), Space::Global), Poly(0)};
      }
      const auto* fd = dyn_cast<FieldDecl>(m->getMemberDecl());
      if (!fd) throw NotAffine{"the member '" + text(e) + "'", e};
      if (fd->isBitField()) throw NotAffine{"the bit-field '" + text(e) + "'", e};
      Target base = m->isArrow() ? ptr(m->getBase(), c) : lvalue(m->getBase(), c);
      const ASTRecordLayout& layout = ctx_.getASTRecordLayout(fd->getParent());
      int64_t off = static_cast<int64_t>(layout.getFieldOffset(fd->getFieldIndex()) / 8);
      return shifted(base, Poly(off));
    }
    if (const auto* t = dyn_cast<MaterializeTemporaryExpr>(e)) {
      rvalue(t->getSubExpr(), c);
      return std::nullopt;
    }
    if (isa<CompoundLiteralExpr>(e) || isa<StringLiteral>(e)) {
      rvalue(e, c);
      return std::nullopt;
    }
    if (const auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma) {
      rvalue(b->getLHS(), c);
      return lvalue(b->getRHS(), c);
    }
    if (isa<CallExpr>(e)) throw NotAffine{"a reference returned by the call '" + text(e) + "'", e};
    throw NotAffine{"the lvalue '" + text(e) + "'", e};
  }

  /// The byte offset of a derived-to-base conversion (non-virtual bases only).
  int64_t base_offset(const CastExpr* ic) {
    const CXXRecordDecl* from = ic->getSubExpr()->getType()->getAsCXXRecordDecl();
    if (!from) throw NotAffine{"a base conversion of a non-class", ic};
    int64_t off = 0;
    for (const CXXBaseSpecifier* b : ic->path()) {
      if (b->isVirtual()) throw NotAffine{"a conversion to a virtual base", ic};
      const CXXRecordDecl* base = b->getType()->getAsCXXRecordDecl();
      off += ctx_.getASTRecordLayout(from).getBaseClassOffset(base).getQuantity();
      from = base;
    }
    return off;
  }

  // ------------------------------------------------------------ accesses

  void record(const Target& p, const Poly& size, Kind kind, const Ctx& c, const Stmt* at) {
    if (!p) return;
    Access a;
    a.array = p->obj.name;
    a.space = p->obj.space;
    a.write = kind != Kind::Read;
    a.atomic = kind == Kind::Atomic;
    a.guards = c.guards;
    a.exact_guards = c.exact;
    a.loops = c.loops;
    a.phase = phase_;
    a.grid_phase = grid_phase_;
    a.pos = pos(at->getBeginLoc());
    a.text = text(at);
    if (kind == Kind::Write) a.value = value_;
    if (a.write)
      for (const auto& [d, v] : env_)
        if (isa<VarDecl>(d)) a.scope[d->getNameAsString()] = v;
    k_.accesses.push_back(std::move(a));
    offsets_.push_back(p->off);
    bytes_.push_back(size);
    mark(at, std::string(kind == Kind::Read    ? "read"
                         : kind == Kind::Write ? "write"
                                               : "atomic") +
                 " #" + std::to_string(k_.accesses.size() - 1) + " of " + p->obj.name);
    ++phase_accesses_;
  }
  void load(const Expr* lv, const Ctx& c) {
    // C++'s lvalue results: `(j = e)`, `++j` are done, then their target is read.
    const Expr* x = lv->IgnoreParens();
    if (const auto* b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp()) {
      mark(lv, "evaluated");
      rvalue(b, c);
      return load(b->getLHS(), c);
    }
    if (const auto* u = dyn_cast<UnaryOperator>(x);
        u && u->isPrefix() && u->isIncrementDecrementOp()) {
      mark(lv, "evaluated");
      rvalue(u, c);
      return load(u->getSubExpr(), c);
    }
    // `c ? x : y` as an lvalue (C++): one of the two is read.
    if (const auto* co = dyn_cast<AbstractConditionalOperator>(lv->IgnoreParens())) {
      mark(lv, "evaluated");
      mark(co, "evaluated");
      rvalue(co->getCond(), c);
      load(co->getTrueExpr(), inexact(c));
      load(co->getFalseExpr(), inexact(c));
      return;
    }
    Target p = lvalue(lv, c);
    if (!p) return;
    record(p, Poly(bytes(lv->getType(), lv)), Kind::Read, c, lv);
  }
  /// Evaluates an lvalue's index expressions without accessing it (`&a[i]`).
  void address(const Expr* lv, const Ctx& c) {
    if (lv->getType()->isFunctionType()) {
      mark(lv, "a function");
      return;
    }
    lvalue(lv, c);
  }

  /// Indices in units: per object, the largest unit dividing every access's offset and
  /// size; an access wider than one unit covers its units through a synthetic counter.
  void normalise() {
    // A value loaded from a variable the kernel writes may differ between threads.
    for (Access& a : k_.accesses)
      if (a.value && a.value->rfind("load ", 0) == 0) {
        size_t from = a.value->rfind(' ', a.value->find('[')) + 1;
        std::string name = a.value->substr(from, a.value->find('[') - from);
        for (const Access& w : k_.accesses)
          if (w.write && w.array == name) a.value.reset();
      }
    std::map<std::string, int64_t> unit;
    for (size_t i = 0; i < k_.accesses.size(); ++i) {
      int64_t& g = unit[k_.accesses[i].array];
      g = coefficient_gcd(bytes_[i], coefficient_gcd(offsets_[i], g));
    }
    for (size_t i = 0; i < k_.accesses.size(); ++i) {
      Access& a = k_.accesses[i];
      // An unknown value or a jump makes the access an over-approximation.
      auto unknown = [](const Poly& x) {
        for (const std::string& v : x.free_vars())
          if (v.rfind("fm_any_", 0) == 0) return true;
        return false;
      };
      bool any = jumps_ || unknown(offsets_[i]) || unknown(bytes_[i]);
      for (const Formula& f : a.guards)
        for (const std::string& v : f.free_vars())
          any = any || v.rfind("fm_any_", 0) == 0;
      for (const LoopCtx& l : a.loops)
        any = any || unknown(l.lower) || unknown(l.count) || unknown(l.step);
      if (any) a.exact_guards = false;
      int64_t g = std::max<int64_t>(1, unit[a.array]);
      a.unit = g;
      a.index = *offsets_[i].exact_div(Poly(g));
      Poly count = *bytes_[i].exact_div(Poly(g));
      if (count == Poly(1)) continue;
      LoopCtx l;
      l.var = "fm_unit_" + std::to_string(units_++);
      l.lower = 0;
      l.count = count;
      Poly u = Poly::var(l.var);
      l.facts = {ge(u, 0), lt(u, count)};
      a.loops.push_back(l);
      a.index = a.index + u;
    }
  }

  void census(const FunctionDecl* f) {
    Census cs(ctx_);
    cs.run(f);
    std::set<const Stmt*> done;
    for (const Stmt* s : cs.nodes) {
      if (!done.insert(s).second) continue;
      auto it = seen_.find(s);
      std::string how = it == seen_.end() ? "" : it->second;
      k_.census.push_back({pos(s->getBeginLoc()), text(s), how});
      if (how.empty())
        k_.unsupported.push_back(
            {pos(s->getBeginLoc()), "internal: unaccounted memory access at " +
                                        std::to_string(pos(s->getBeginLoc()).line) + ":" +
                                        std::to_string(pos(s->getBeginLoc()).col) + " ('" +
                                        text(s) + "')"});
    }
  }

  // ------------------------------------------------------------ expressions

  Ctx inexact(const Ctx& c) const {
    Ctx d = c;
    d.exact = false;
    d.conditional = true;
    return d;
  }

  /// A local whose address is taken (`&x`, a reference bound to it) may change through
  /// the pointer: it is not followed from here on.
  void escape(const Expr* lv) {
    const auto* d = dyn_cast<DeclRefExpr>(lv->IgnoreParenImpCasts());
    if (!d || !local(d->getDecl())) return;
    const ValueDecl* v = d->getDecl();
    escaped_.insert(v);
    if (v->getType()->isIntegerType()) env_.erase(v); // read afresh each time
    if (v->getType()->isPointerType()) {
      ptrs_.erase(v);
      bad_ptrs_[v] = "the address of the pointer '" + v->getNameAsString() + "' is taken";
    }
  }

  /// Evaluates an expression: records its reads, writes and calls.
  void rvalue(const Expr* e, const Ctx& c) {
    if (!e) return;
    mark(e, "evaluated");
    if (const auto* p = dyn_cast<ParenExpr>(e)) return rvalue(p->getSubExpr(), c);
    if (const auto* f = dyn_cast<FullExpr>(e)) return rvalue(f->getSubExpr(), c);
    if (const auto* t = dyn_cast<MaterializeTemporaryExpr>(e)) return rvalue(t->getSubExpr(), c);
    if (const auto* t = dyn_cast<CXXBindTemporaryExpr>(e)) return rvalue(t->getSubExpr(), c);
    if (const auto* d = dyn_cast<CXXDefaultArgExpr>(e)) return rvalue(d->getExpr(), c);
    if (const auto* d = dyn_cast<CXXDefaultInitExpr>(e)) return rvalue(d->getExpr(), c);
    if (const auto* ic = dyn_cast<ImplicitCastExpr>(e)) {
      switch (ic->getCastKind()) {
      case CK_LValueToRValue:
        return load(ic->getSubExpr(), c);
      case CK_ArrayToPointerDecay:
        return address(ic->getSubExpr(), c);
      default:
        return rvalue(ic->getSubExpr(), c);
      }
    }
    if (const auto* ec = dyn_cast<ExplicitCastExpr>(e)) return rvalue(ec->getSubExpr(), c);
    if (const auto* u = dyn_cast<UnaryOperator>(e)) {
      if (u->getOpcode() == UO_AddrOf) {
        escape(u->getSubExpr());
        return address(u->getSubExpr(), c);
      }
      if (u->isIncrementDecrementOp()) return assign(u->getSubExpr(), nullptr, true, c, u);
      if (u->getOpcode() == UO_Deref) return address(e, c);
      return rvalue(u->getSubExpr(), c);
    }
    if (const auto* b = dyn_cast<BinaryOperator>(e)) {
      if (b->isAssignmentOp())
        return assign(b->getLHS(), b->getRHS(), b->isCompoundAssignmentOp(), c, b);
      rvalue(b->getLHS(), c);
      rvalue(b->getRHS(), b->isLogicalOp() ? inexact(c) : c);
      return;
    }
    if (const auto* co = dyn_cast<AbstractConditionalOperator>(e)) {
      rvalue(co->getCond(), c);
      rvalue(co->getTrueExpr(), inexact(c));
      rvalue(co->getFalseExpr(), inexact(c));
      return;
    }
    if (const auto* call = dyn_cast<CallExpr>(e)) return call_expr(call, c);
    if (const auto* cc = dyn_cast<CXXConstructExpr>(e)) return construct(cc, std::nullopt, c);
    if (const auto* il = dyn_cast<InitListExpr>(e)) {
      for (const Expr* i : il->inits())
        rvalue(i, c);
      return;
    }
    if (isa<DeclRefExpr>(e) || isa<ArraySubscriptExpr>(e) || isa<MemberExpr>(e))
      return address(e, c); // an lvalue whose value is not read
    if (isa<UnaryExprOrTypeTraitExpr>(e)) {
      cover(e, "not evaluated (sizeof)");
      return;
    }
    if (isa<IntegerLiteral>(e) || isa<FloatingLiteral>(e) || isa<CharacterLiteral>(e) ||
        isa<CXXBoolLiteralExpr>(e) || isa<StringLiteral>(e) || isa<CXXNullPtrLiteralExpr>(e) ||
        isa<GNUNullExpr>(e) || isa<ImplicitValueInitExpr>(e) || isa<CXXScalarValueInitExpr>(e) ||
        isa<ConstantExpr>(e) || isa<CXXThisExpr>(e))
      return;
    if (const auto* t = dyn_cast<SubstNonTypeTemplateParmExpr>(e))
      return rvalue(t->getReplacement(), c);
    throw NotAffine{
        std::string("the expression kind '") + e->getStmtClassName() + "' ('" + text(e) + "')", e};
  }

  /// The value of a local after `x op= rhs`, `++x`, `x--`, ... from its value `now`.
  Poly updated(const Poly& now, const Expr* at, const Expr* rhs) {
    if (const auto* u = dyn_cast<UnaryOperator>(at)) return now + Poly(u->isIncrementOp() ? 1 : -1);
    const auto* ca = dyn_cast<CompoundAssignOperator>(at);
    if (!ca || !rhs) return any();
    Poly r = poly(rhs);
    switch (ca->getOpcode()) {
    case BO_AddAssign:
      return now + r;
    case BO_SubAssign:
      return now - r;
    case BO_MulAssign:
      return now * r;
    case BO_DivAssign:
      return Poly::div(now, r);
    case BO_RemAssign:
      return Poly::mod(now, r);
    case BO_ShlAssign:
    case BO_ShrAssign: {
      auto k = r.constant();
      if (!k || *k < 0 || *k > 30) return any();
      return ca->getOpcode() == BO_ShlAssign ? now * Poly(int64_t{1} << *k)
                                             : Poly::div(now, Poly(int64_t{1} << *k));
    }
    default:
      return any();
    }
  }

  /// The value of `e` when every thread computes the same one: a constant, or a
  /// polynomial in scalar parameters and launch sizes.
  std::optional<std::string> uniform_value(const Expr* e) {
    Expr::EvalResult r;
    if (!e->isValueDependent() && e->EvaluateAsRValue(r, ctx_)) {
      if (r.Val.isInt()) return "int " + llvm::toString(r.Val.getInt(), 10);
      if (r.Val.isFloat()) {
        llvm::SmallString<32> t;
        r.Val.getFloat().toString(t);
        return "float " + std::string(t.str());
      }
    }
    // A load of a fixed element of a variable of memory (`A[0]`, `s`): the same in every
    // thread unless the kernel writes the variable (checked in normalise).
    {
      const Expr* x = e->IgnoreParenImpCasts();
      std::optional<int64_t> k = 0;
      if (const auto* a = dyn_cast<ArraySubscriptExpr>(x)) {
        auto c = a->getIdx()->getIntegerConstantExpr(ctx_);
        k = c ? std::optional<int64_t>(c->getExtValue()) : std::nullopt;
        x = a->getBase()->IgnoreParenImpCasts();
      }
      if (const auto* d = dyn_cast<DeclRefExpr>(x); d && k)
        if (const auto* v = dyn_cast<VarDecl>(d->getDecl()); v && objects_.count(v))
          return std::string(objects_.at(v).space == Space::Shared ? "load shared " : "load ") +
                 objects_.at(v).name + "[" + std::to_string(*k) + "]";
    }
    // The address of a variable of memory (`p = A` of a `__shared__` array).
    if (e->getType()->isPointerType())
      if (const auto* d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
        if (const auto* v = dyn_cast<VarDecl>(d->getDecl());
            v && (v->hasAttr<CUDASharedAttr>() || v->hasGlobalStorage()))
          return std::string(v->hasAttr<CUDASharedAttr>() ? "address shared " : "address ") +
                 v->getNameAsString();
    if (!e->getType()->isIntegralOrUnscopedEnumerationType()) return std::nullopt;
    Poly v = poly(e);
    for (const std::string& n : v.free_vars())
      if (n.rfind("blockDim_", 0) != 0 && n.rfind("gridDim_", 0) != 0 &&
          std::find(k_.scalar_params.begin(), k_.scalar_params.end(), n) == k_.scalar_params.end())
        return std::nullopt;
    return "int " + v.to_string();
  }

  void assign(const Expr* lhs0, const Expr* rhs, bool compound, const Ctx& c, const Expr* at) {
    const Expr* lhs = lhs0->IgnoreParens();
    if (rhs) rvalue(rhs, c);
    if (const auto* d = dyn_cast<DeclRefExpr>(lhs); d && local(d->getDecl())) {
      mark(d, "private (a local)");
      const ValueDecl* v = d->getDecl();
      for (const LoopCtx& l : c.loops)
        if (l.var == v->getNameAsString()) {
          unsupported(at, "the loop counter '" + l.var + "' is assigned in the loop body");
          return;
        }
      auto level = depth_of_.find(v);
      bool straight =
          (level != depth_of_.end() ? level->second == c.depth : c.loops.empty() && !c.divergent) &&
          !c.conditional && !escaped_.count(v);
      if (v->getType()->isIntegerType()) {
        // Followed in program order: branches join (see stmt), loops start and end
        // with unknowns (forget_assigned). A local whose address is taken is read
        // afresh each time; an assignment that may not run (an operand of ?:, && or
        // ||) leaves an unknown.
        if (escaped_.count(v)) return;
        Poly value = c.conditional ? any()
                     : !compound   ? poly(rhs)
                                   : updated(env_.count(v) ? env_.at(v) : any(), at, rhs);
        env_[v] = value;
      } else if (v->getType()->isPointerType() || is_fm_mem(v->getType())) {
        ptrs_.erase(v);
        bad_ptrs_[v] = "the pointer '" + v->getNameAsString() + "' is reassigned";
        if (!compound && rhs && straight) {
          try {
            ptrs_[v] = is_fm_mem(v->getType()) ? block(rhs, c) : ptr(rhs, c);
            bad_ptrs_.erase(v);
          } catch (const NotAffine&) {
          }
        }
      }
      return;
    }
    if (isa<MemberExpr>(lhs) && broken_ == "unvisited-member-stores") return;
    Target p = lvalue(lhs, c);
    if (isa<MemberExpr>(lhs) && broken_ == "dropped-member-stores") return;
    Poly size(bytes(lhs->getType(), lhs));
    if (compound) record(p, size, Kind::Read, c, lhs);
    if (!compound && rhs) value_ = uniform_value(rhs);
    record(p, size, Kind::Write, c, lhs);
    value_.reset();
  }
  /// A thread's own variable (not memory): a local or a parameter, not a reference.
  bool local(const ValueDecl* d) const {
    const auto* v = dyn_cast<VarDecl>(d);
    return v && !v->hasGlobalStorage() && !v->hasAttr<CUDASharedAttr>() &&
           !v->getType()->isReferenceType() && !refs_.count(v);
  }

  /// `f` has one value in all threads of a block: it mentions no thread index, no
  /// unknown and no loop counter.
  static bool block_uniform(const Formula& f, const Ctx& c) {
    for (const std::string& v : f.free_vars()) {
      if (v.rfind("threadIdx_", 0) == 0 || v.rfind("fm_any_", 0) == 0) return false;
      for (const LoopCtx& l : c.loops)
        if (l.var == v) return false;
    }
    return true;
  }

  void barrier(const Stmt* s, const Ctx& c) {
    ++k_.barriers;
    if (c.divergent) {
      unsupported(s, "__syncthreads() inside a condition or nested statement (divergence)");
      return;
    }
    if (c.returned) {
      unsupported(s, "__syncthreads() after a thread-dependent early return (barrier "
                     "divergence)");
      return;
    }
    if (jumps_) {
      unsupported(s, "__syncthreads() in a function with goto (divergence is not excluded)");
      return;
    }
    ++phase_;
    phase_accesses_ = 0;
  }

  void call_expr(const CallExpr* call, const Ctx& c) {
    mark(call, "call");
    const FunctionDecl* f = call->getDirectCallee();
    if (!f) return indirect_call(call, c);
    if (const auto* m = dyn_cast<MemberExpr>(call->getCallee()->IgnoreParenImpCasts()))
      mark(m, "the called method");
    std::string n = f->getNameAsString();
    const auto* method = dyn_cast<CXXMethodDecl>(f);
    // A trivial copy or move of a structure: a read of the source, a write of the target.
    if (method && method->isTrivial() &&
        (method->isCopyAssignmentOperator() || method->isMoveAssignmentOperator())) {
      const Expr *to = call->getArg(0), *from = call->getArg(1);
      if (isa<CXXMemberCallExpr>(call)) {
        to = cast<CXXMemberCallExpr>(call)->getImplicitObjectArgument();
        from = call->getArg(0);
      }
      // A local memory block made to name another block (generated code): followed as
      // a pointer is.
      if (const auto* d = dyn_cast<DeclRefExpr>(to->IgnoreParens());
          d && is_fm_mem(d->getType()) && local(d->getDecl())) {
        mark(call, "memory block assignment");
        return assign(to, from, false, c, call);
      }
      load(from, c);
      Target p = lvalue(to, c);
      record(p, Poly(bytes(to->getType(), to)), Kind::Write, c, to);
      mark(call, "structure assignment");
      return;
    }
    if ((in_header(f) && !f->doesThisDeclarationHaveABody()) || n == "__builtin_memcpy" ||
        n == "__builtin_memset") {
      builtin_call(call, n, c);
      return;
    }
    inline_call(call, f, c);
  }

  /// The pointer a call returns, when its function (with a body, not a method) is one
  /// `return e;` after annotations only: its arguments bound and `e` followed.
  std::optional<Target> returned_pointer(const CallExpr* call, const Ctx& c) {
    const FunctionDecl* f = call->getDirectCallee();
    const FunctionDecl* d = f ? f->getDefinition() : nullptr;
    if (!d || !d->hasBody() || in_header(d) || isa<CXXMethodDecl>(d) || d->isVariadic() ||
        std::find(inlined_.begin(), inlined_.end(), d) != inlined_.end())
      return std::nullopt;
    const auto* body = dyn_cast<CompoundStmt>(d->getBody());
    if (!body || body->body_empty()) return std::nullopt;
    const auto* ret = dyn_cast<ReturnStmt>(body->body_back());
    if (!ret || !ret->getRetValue()) return std::nullopt;
    for (const Stmt* s : body->body())
      if (s != ret && !(isa<Expr>(s) && only_annotations(cast<Expr>(s)))) return std::nullopt;
    bind(d, std::vector<const Expr*>(call->arg_begin(), call->arg_end()), c);
    for (const Stmt* s : body->body())
      if (s != ret) cover(s, "GPUVerify annotation (a specification: not executed, not trusted)");
    mark(call, "inlined call of " + f->getNameAsString() + " (the pointer it returns)");
    inlined_.push_back(d);
    Target t = ptr(ret->getRetValue(), c);
    inlined_.pop_back();
    return t;
  }

  /// A call through a function pointer: each function of the file of its type whose
  /// address is taken may be the one called, and none may (a branch not known to run).
  void indirect_call(const CallExpr* call, const Ctx& c) {
    const Expr* callee = call->getCallee()->IgnoreParenImpCasts();
    if (const auto* u = dyn_cast<UnaryOperator>(callee); u && u->getOpcode() == UO_Deref) {
      mark(u, "the called function (a function pointer dereferenced: no memory)");
      callee = u->getSubExpr()->IgnoreParenImpCasts();
    }
    // The pointer's value: a local or a parameter is no memory; anything else is read.
    if (const auto* d = dyn_cast<DeclRefExpr>(callee); !(d && local(d->getDecl())))
      rvalue(callee, c);
    else
      mark(d, "the called function pointer (a local)");
    std::vector<const FunctionDecl*> fs = indirect_callees(ctx_, called_type(call), address_taken_);
    if (fs.empty())
      throw NotAffine{"an indirect call ('" + text(call) +
                          "') where no function of its type has its address taken in the file",
                      call};
    Ctx inner = c;
    inner.divergent = true;
    inner.exact = false;
    inner.conditional = true;
    ++inner.depth;
    for (const FunctionDecl* f : fs)
      inline_call(call, f, inner);
    mark(call, "indirect call of any of " + std::to_string(fs.size()) + " function(s)");
    k_.indirect_calls = true;
  }

  void builtin_call(const CallExpr* call, const std::string& n, const Ctx& c) {
    unsigned args = call->getNumArgs();
    if (is_annotation(call->getDirectCallee())) {
      mark(call, "GPUVerify annotation (a specification: not executed, not trusted)");
      if ((n == "__requires" || n == "__global_requires") && args == 1) precondition(call, c);
      // An invariant of a loop the extractor does not summarise (`while`, `do`).
      if ((n == "__invariant" || n == "__global_invariant") && args == 1)
        k_.assertions.push_back({pos(call->getBeginLoc()), "invariant", text(call->getArg(0)),
                                 std::nullopt, c.guards, c.loops});
      if ((n == "__assert" || n == "__global_assert") && args == 1) {
        const Expr* e = call->getArg(0);
        k_.assertions.push_back({pos(call->getBeginLoc()), "assert", text(e),
                                 uses_predicates(e) ? std::nullopt : formula(e), c.guards,
                                 c.loops});
      }
      return;
    }
    if (n == "__syncthreads") {
      barrier(call, c);
      mark(call, "barrier");
      return;
    }
    // Cooperative groups: `g.sync()`, `synchronize(g)` of a thread block (a barrier) or
    // of the grid (a barrier of every thread of the launch).
    if (n == "sync" || n == "synchronize") {
      const Expr* g = nullptr;
      if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call))
        g = mc->getImplicitObjectArgument();
      else if (args == 1)
        g = call->getArg(0);
      const auto* r = g ? g->getType()->getAsCXXRecordDecl() : nullptr;
      std::string group = r ? r->getNameAsString() : "";
      if (group == "thread_block" || group == "grid_group") {
        cover(call, "barrier");
        barrier(call, c);
        if (group == "grid_group") {
          if (c.divergent || c.returned || c.uniform || !c.loops.empty())
            unsupported(call, "a grid barrier inside a condition or a loop");
          ++grid_phase_;
        }
        return;
      }
    }
    // funmem-cuda's element loads and stores: fm_ld<T>(m, i, site), fm_st<T>(m, i, v, site).
    if ((n == "fm_ld" && args == 3) || (n == "fm_st" && args == 4)) {
      for (unsigned k = 1; k < args; ++k)
        rvalue(call->getArg(k), c);
      QualType t = n == "fm_ld" ? call->getType() : call->getArg(2)->getType();
      int64_t size = bytes(t, call);
      mark(call->getArg(0), "block");
      Target base = block(call->getArg(0), c);
      record(shifted(base, poly_at(call->getArg(1)) * Poly(size)), Poly(size),
             n == "fm_st" ? Kind::Write : Kind::Read, c, call);
      return;
    }
    // A value a parametric kernel keeps in shared memory: fm_sld<T>(s, cell),
    // fm_sst<T>(s, cell, v), a read / write of s[cell] (8-byte cells).
    if ((n == "fm_sld" && args == 2) || (n == "fm_sst" && args == 3)) {
      for (unsigned k = 1; k < args; ++k)
        rvalue(call->getArg(k), c);
      Target s = ptr(call->getArg(0), c);
      record(shifted(s, poly_at(call->getArg(1)) * Poly(8)), Poly(8),
             n == "fm_sst" ? Kind::Write : Kind::Read, c, call);
      return;
    }
    // A parametric kernel's load through its shared tile, fm_ld_tile<T>(m, i, site, tile,
    // start, len) or, two-dimensional, fm_ld_tile2<T>(m, i, site, tile, cell, use): it
    // reads tile[i - start] (tile[cell]) or m[i]; both are recorded.
    if ((n == "fm_ld_tile" || n == "fm_ld_tile2") && args == 6) {
      for (unsigned k = 1; k < args; ++k)
        if (k != 3) rvalue(call->getArg(k), c);
      int64_t size = bytes(call->getType(), call);
      mark(call->getArg(0), "block");
      Target base = block(call->getArg(0), c);
      record(shifted(base, poly_at(call->getArg(1)) * Poly(size)), Poly(size), Kind::Read, c, call);
      Target tile = ptr(call->getArg(3), c);
      const Poly cell = n == "fm_ld_tile2" ? poly_at(call->getArg(4))
                                           : poly_at(call->getArg(1)) - poly_at(call->getArg(4));
      record(shifted(tile, cell * Poly(8)), Poly(size), Kind::Read, c, call);
      return;
    }
    if (n.rfind("atomic", 0) == 0 && args >= 1 && call->getArg(0)->getType()->isPointerType()) {
      Target p = ptr(call->getArg(0), c);
      for (unsigned k = 1; k < args; ++k)
        rvalue(call->getArg(k), c);
      record(p, Poly(bytes(call->getArg(0)->getType()->getPointeeType(), call)), Kind::Atomic, c,
             call);
      return;
    }
    if ((n == "memcpy" || n == "memset" || n == "__builtin_memcpy" || n == "__builtin_memset") &&
        args == 3) {
      bool copy = n.find("memcpy") != std::string::npos;
      Target to = ptr(call->getArg(0), c);
      Target from;
      if (copy)
        from = ptr(call->getArg(1), c);
      else
        rvalue(call->getArg(1), c);
      rvalue(call->getArg(2), c);
      Poly size = poly_at(call->getArg(2));
      if (copy) record(from, size, Kind::Read, c, call);
      record(to, size, Kind::Write, c, call);
      mark(call, n);
      return;
    }
    // cuRAND (funmem_cuda_min.h): the state is read and written (curand_init: written).
    if (n.rfind("curand", 0) == 0 && args >= 1) {
      const Expr* s = call->getArg(args - 1);
      const auto* r = s->getType()->isPointerType()
                          ? s->getType()->getPointeeType()->getAsCXXRecordDecl()
                          : nullptr;
      if (r && (r->getName() == "curandStateXORWOW" || r->getName() == "curandStateMtgp32")) {
        for (unsigned k = 0; k + 1 < args; ++k)
          rvalue(call->getArg(k), c);
        Target p = ptr(s, c);
        Poly size(bytes(s->getType()->getPointeeType(), call));
        if (r->getName() == "curandStateMtgp32") {
          // One byte per thread of a block, 256 of them.
          Poly t = Poly::var("threadIdx_x") + Poly::var("threadIdx_y") * Poly::var("blockDim_x") +
                   Poly::var("threadIdx_z") * Poly::var("blockDim_x") * Poly::var("blockDim_y");
          for (const char* b :
               {"threadIdx_x", "threadIdx_y", "threadIdx_z", "blockDim_x", "blockDim_y"})
            use_name(b);
          p = shifted(p, Poly::mod(t, Poly(256)));
          size = Poly(1);
        }
        if (n != "curand_init") record(p, size, Kind::Read, c, call);
        record(p, size, Kind::Write, c, call);
        mark(call, "cuRAND call (its state read and written)");
        return;
      }
    }
    if (touches_memory_builtin(n))
      throw NotAffine{"the call '" + text(call) + "' it cannot model", call};
    // Warp shuffles, fences, math functions: no memory.
    for (const Expr* a : call->arguments()) {
      if (a->getType()->isPointerType())
        throw NotAffine{"a call of '" + n + "' with a pointer argument", call};
      rvalue(a, c);
    }
    mark(call, "built-in function (no memory)");
  }
  /// A kernel's precondition: trusted as a launch fact only at the start of the kernel's
  /// own body (not an inlined function's, whose preconditions its callers must meet)
  /// and only over scalar parameters and launch sizes; anything else is not trusted.
  void precondition(const CallExpr* call, const Ctx& c) {
    if (!inlined_.empty() || c.depth != 0 || !c.guards.empty() || !c.loops.empty() || c.divergent ||
        c.returned || !k_.accesses.empty() || k_.barriers > 0)
      return;
    std::optional<Formula> f = formula(call->getArg(0));
    if (!f) return;
    std::set<std::string> params(k_.scalar_params.begin(), k_.scalar_params.end());
    for (const std::string& v : f->free_vars())
      if (!params.count(v) && v.rfind("blockDim_", 0) != 0 && v.rfind("gridDim_", 0) != 0) return;
    k_.preconditions.push_back(*f);
  }

  /// An `fm_mem` argument: the block it names.
  Target block(const Expr* e, const Ctx& c) {
    const Expr* x = e->IgnoreParenImpCasts();
    if (const auto* cc = dyn_cast<CXXConstructExpr>(x); cc && cc->getNumArgs() == 1) {
      mark(cc, "block");
      x = cc->getArg(0)->IgnoreParenImpCasts();
    }
    mark(x, "block");
    if (const auto* d = dyn_cast<DeclRefExpr>(x)) {
      if (auto it = ptrs_.find(d->getDecl()); it != ptrs_.end()) return it->second;
      if (auto it = bad_ptrs_.find(d->getDecl()); it != bad_ptrs_.end())
        throw NotAffine{it->second, e};
    }
    (void)c;
    throw NotAffine{"the memory block '" + text(e) + "', whose target it cannot follow", e};
  }

  /// Binds a call's parameters to its arguments (values, pointers' and references'
  /// targets).
  void bind(const FunctionDecl* d, const std::vector<const Expr*>& args, const Ctx& c) {
    for (unsigned i = 0; i < d->getNumParams(); ++i) {
      const ParmVarDecl* p = d->getParamDecl(i);
      const Expr* a = i < args.size() ? args[i] : p->getDefaultArg();
      if (!a)
        throw NotAffine{"a call of '" + d->getNameAsString() + "' without argument " +
                        std::to_string(i + 1)};
      QualType t = p->getType();
      env_.erase(p);
      ptrs_.erase(p);
      bad_ptrs_.erase(p);
      refs_.erase(p);
      depth_of_[p] = c.depth;
      if (t->isReferenceType()) {
        escape(a);
        refs_[p] = lvalue(a, c);
      } else if (t->isPointerType() || is_fm_mem(t)) {
        try {
          ptrs_[p] = is_fm_mem(t) ? block(a, c) : ptr(a, c);
        } catch (const NotAffine& e) {
          // Followed only if it is used; what the argument reads is read here.
          bad_ptrs_[p] = "the pointer '" + p->getNameAsString() + "': " + e.why;
          rvalue(a, c);
        }
      } else {
        rvalue(a, c);
        if (t->isIntegerType()) env_[p] = poly(a);
      }
    }
  }

  /// The root variable of an lvalue whose storage it is part of (`q` of `q.a[2].b`;
  /// the pointer for places reached through one).
  static const Expr* storage_root(const Expr* e) {
    e = e->IgnoreParenImpCasts();
    if (const auto* m = dyn_cast<MemberExpr>(e))
      return m->isArrow() ? m->getBase()->IgnoreParenImpCasts() : storage_root(m->getBase());
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(e);
        a && a->getBase()->IgnoreParenImpCasts()->getType()->isArrayType())
      return storage_root(a->getBase()->IgnoreParenImpCasts());
    return e;
  }
  /// Whether `body` (or a function it calls) may change the parameter `p`: an
  /// assignment, increment, address or reference into its storage, or any of these
  /// into a method's `this`.
  bool changed(const Stmt* body, const ParmVarDecl* p) const {
    auto hits = [p](const Expr* lv) {
      const Expr* r = storage_root(lv);
      if (isa<CXXThisExpr>(r)) return true;
      const auto* d = dyn_cast<DeclRefExpr>(r);
      return d && d->getDecl() == p;
    };
    std::set<const FunctionDecl*> seen;
    return reaches(body, seen, [&](const Stmt* x) {
      if (const auto* b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp())
        return hits(b->getLHS());
      if (const auto* u = dyn_cast<UnaryOperator>(x);
          u && (u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf))
        return hits(u->getSubExpr());
      if (const auto* ds = dyn_cast<DeclStmt>(x))
        for (const Decl* d : ds->decls())
          if (const auto* v = dyn_cast<VarDecl>(d);
              v && v->getType()->isReferenceType() && v->getInit() && hits(v->getInit()))
            return true;
      // A method whose body is not followed (a trivial assignment, say) on the object.
      if (const auto* call = dyn_cast<CallExpr>(x))
        if (const auto* m = dyn_cast_or_null<CXXMethodDecl>(call->getDirectCallee());
            m && !m->isStatic() && !m->isConst() && (m->isTrivial() || !m->getDefinition())) {
          const Expr* obj = nullptr;
          if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call))
            obj = mc->getImplicitObjectArgument();
          else if (isa<CXXOperatorCallExpr>(call) && call->getNumArgs() > 0)
            obj = call->getArg(0);
          if (obj && hits(obj)) return true;
        }
      if (const auto* call = dyn_cast<CallExpr>(x))
        if (const FunctionDecl* f = call->getDirectCallee())
          for (unsigned i = 0; i < call->getNumArgs() && i < f->getNumParams(); ++i)
            if (f->getParamDecl(i)->getType()->isReferenceType() &&
                !f->getParamDecl(i)->getType().getNonReferenceType().isConstQualified() &&
                hits(call->getArg(i)))
              return true;
      return false;
    });
  }

  /// A value of type `t` can hold an address (a pointer, a reference, a structure or
  /// array with one).
  bool holds_pointer(QualType t) const {
    t = t.getCanonicalType();
    if (t->isPointerType() || t->isReferenceType() || t->isMemberPointerType()) return true;
    if (const auto* a = ctx_.getAsArrayType(t)) return holds_pointer(a->getElementType());
    if (const auto* r = t->getAsCXXRecordDecl()) {
      if (!r->hasDefinition()) return true;
      for (const CXXBaseSpecifier& b : r->bases())
        if (holds_pointer(b.getType())) return true;
      for (const FieldDecl* fd : r->fields())
        if (holds_pointer(fd->getType())) return true;
    }
    return false;
  }

  void inline_call(const CallExpr* call, const FunctionDecl* f, const Ctx& c) {
    const FunctionDecl* d = f->getDefinition();
    if (!d || !d->hasBody()) {
      // Defined elsewhere (or nowhere): given values only, it reaches none of the
      // kernel's memory unless the file has `__device__` variables other files see.
      bool values = !isa<CXXMemberCallExpr>(call) && !external_globals_;
      for (const Expr* a : call->arguments())
        values = values && !holds_pointer(a->getType());
      if (!values)
        throw NotAffine{"a call of '" + f->getNameAsString() +
                            "', whose body is not available, with a pointer argument or "
                            "visible __device__ variables",
                        call};
      for (const Expr* a : call->arguments())
        rvalue(a, c);
      mark(call, "a call of " + f->getNameAsString() +
                     " without a body: values only, none of the kernel's memory");
      return;
    }
    if (std::find(inlined_.begin(), inlined_.end(), d) != inlined_.end() || inlined_.size() > 16)
      throw NotAffine{"a recursive call of '" + f->getNameAsString() + "'", call};
    if (d->isVariadic()) throw NotAffine{"a call of the variadic '" + f->getNameAsString() + "'"};
    std::vector<const Expr*> args(call->arg_begin(), call->arg_end());
    Target self;
    std::optional<std::string> self_path;
    bool method = false;
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
      const Expr* obj = mc->getImplicitObjectArgument();
      const auto* me = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens());
      self = me && me->isArrow() ? ptr(obj, c) : lvalue(obj, c);
      if (!(me && me->isArrow())) self_path = param_path(obj);
      method = true;
    } else if (isa<CXXOperatorCallExpr>(call) && isa<CXXMethodDecl>(d) &&
               !cast<CXXMethodDecl>(d)->isStatic()) {
      self = lvalue(call->getArg(0), c);
      self_path = param_path(call->getArg(0));
      args.erase(args.begin());
      method = true;
    }
    bind(d, args, c);
    if (method) {
      this_.push_back(self);
      this_path_.push_back(self_path);
    }
    inlined_.push_back(d);
    mark(call, "inlined call of " + f->getNameAsString());
    Ctx inner = c;
    block_items(d->getBody(), inner);
    inlined_.pop_back();
    if (method) {
      this_.pop_back();
      this_path_.pop_back();
    }
  }

  /// A construction: `target` is the object constructed (nullopt: the thread's own).
  void construct(const CXXConstructExpr* cc, const Target& target, const Ctx& c) {
    mark(cc, "construction");
    const CXXConstructorDecl* ctor = cc->getConstructor();
    if (ctor->isTrivial() || (ctor->isDefaulted() && ctor->getParent()->isPOD() &&
                              (ctor->isCopyConstructor() || ctor->isMoveConstructor()))) {
      if ((ctor->isCopyConstructor() || ctor->isMoveConstructor()) && cc->getNumArgs() >= 1)
        load(cc->getArg(0), c);
      record(target, Poly(bytes(cc->getType(), cc)), Kind::Write, c, cc);
      return;
    }
    if (target) throw NotAffine{"a non-trivial construction of an object in memory", cc};
    const CXXRecordDecl* r = ctor->getParent();
    if (r->getNumBases() > 0) throw NotAffine{"a construction of a derived class", cc};
    const auto* d = dyn_cast_or_null<CXXConstructorDecl>(ctor->getDefinition());
    if (!d) throw NotAffine{"a constructor whose body is not available", cc};
    if (std::find(inlined_.begin(), inlined_.end(), d) != inlined_.end())
      throw NotAffine{"a recursive construction", cc};
    bind(d, std::vector<const Expr*>(cc->arg_begin(), cc->arg_end()), c);
    this_.push_back(std::nullopt);
    this_path_.push_back(std::nullopt);
    inlined_.push_back(d);
    for (const CXXCtorInitializer* i : d->inits())
      if (i->isWritten()) rvalue(i->getInit(), c);
    Ctx inner = c;
    block_items(d->getBody(), inner);
    inlined_.pop_back();
    this_.pop_back();
    this_path_.pop_back();
  }

  /// Variables assigned (or incremented) anywhere in `s`.
  /// Variables that `s` may change: assigned, incremented, or reachable through a
  /// pointer or reference it takes (`&x`, `int& r = x`, `f(x)` with a reference
  /// parameter).
  static void assigned_in(const Stmt* s, std::set<const ValueDecl*>& out) {
    if (!s) return;
    auto target = [&](const Expr* e) {
      if (const auto* d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts())) out.insert(d->getDecl());
    };
    if (const auto* b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp()) target(b->getLHS());
    if (const auto* u = dyn_cast<UnaryOperator>(s);
        u && (u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf))
      target(u->getSubExpr());
    if (const auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d);
            v && v->getType()->isReferenceType() && v->getInit())
          target(v->getInit());
    if (const auto* call = dyn_cast<CallExpr>(s))
      if (const FunctionDecl* f = call->getDirectCallee()) {
        // An operator that is a method takes its object as argument 0.
        const auto* m = dyn_cast<CXXMethodDecl>(f);
        unsigned skip = isa<CXXOperatorCallExpr>(call) && m && !m->isStatic() ? 1 : 0;
        for (unsigned i = skip; i < call->getNumArgs() && i - skip < f->getNumParams(); ++i)
          if (QualType t = f->getParamDecl(i - skip)->getType();
              t->isReferenceType() && !t->getPointeeType().isConstQualified())
            target(call->getArg(i));
        // A method that may change its object (`x = y` of a structure is one).
        if (m && !m->isStatic() && !m->isConst()) {
          if (skip) target(call->getArg(0));
          if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call))
            target(mc->getImplicitObjectArgument());
        }
      }
    for (const Stmt* c : s->children())
      assigned_in(c, out);
  }
  /// Before a loop body runs again: what it assigns is not followed from its start on.
  void forget_assigned(const Stmt* body, const std::string& except) {
    std::set<const ValueDecl*> vs;
    assigned_in(body, vs);
    for (const ValueDecl* v : vs) {
      if (v->getNameAsString() == except) continue;
      // Locals declared inside `body` get their values when they are declared.
      if (v->getType()->isIntegerType() && env_.count(v)) env_[v] = any();
      if (ptrs_.erase(v) || v->getType()->isPointerType())
        bad_ptrs_[v] = "the pointer '" + v->getNameAsString() + "' is reassigned in a loop";
    }
  }

  // ------------------------------------------------------------ statements

  void block_items(const Stmt* s, Ctx c) {
    if (const auto* cs = dyn_cast<CompoundStmt>(s)) {
      for (const Stmt* child : cs->body()) {
        // `if (cond) return a; else ...` ending the block: the else branch is the rest.
        if (const auto* i = dyn_cast<IfStmt>(child);
            i && i->getElse() && returns(i->getThen()) && child == cs->body_back()) {
          early_return(i, c);
          tail(i->getElse(), c);
          continue;
        }
        // `if (cond) return;`: the rest runs only when cond is false.
        if (const auto* i = dyn_cast<IfStmt>(child); i && !i->getElse() && returns(i->getThen())) {
          early_return(i, c);
          continue;
        }
        // `return e;` ending a device function.
        if (const auto* r = dyn_cast<ReturnStmt>(child);
            r && !inlined_.empty() && child == cs->body_back()) {
          mark(r, "return");
          guarded(r, [&] { rvalue(r->getRetValue(), c); });
          continue;
        }
        stmt(child, c);
      }
      return;
    }
    stmt(s, c);
  }
  /// The last statement of a block after `if (cond) return a; else`: a return, another
  /// such `if`, or statements.
  void tail(const Stmt* s, Ctx& c) {
    if (const auto* r = dyn_cast<ReturnStmt>(s); r && (!inlined_.empty() || !r->getRetValue())) {
      mark(r, "return");
      if (r->getRetValue()) guarded(r, [&] { rvalue(r->getRetValue(), c); });
      return;
    }
    if (const auto* i = dyn_cast<IfStmt>(s); i && returns(i->getThen())) {
      early_return(i, c);
      if (i->getElse()) tail(i->getElse(), c);
      return;
    }
    block_items(s, c);
  }
  /// `if (cond) return [e];`: e (in a device function) is evaluated when cond holds; what
  /// follows runs only when it does not (`c` gets the negated condition).
  void early_return(const IfStmt* i, Ctx& c) {
    auto f = formula(i->getCond());
    guarded(i, [&] {
      rvalue(i->getCond(), c);
      // `if (cond) return e;` in a device function: e is evaluated when cond holds.
      const auto* r = dyn_cast<ReturnStmt>(i->getThen());
      if (!r) r = cast<ReturnStmt>(cast<CompoundStmt>(i->getThen())->body_front());
      mark(r, "return");
      if (r->getRetValue()) {
        if (inlined_.empty()) throw NotAffine{"a return with a value in a kernel", r};
        Ctx then = f ? c : inexact(c);
        if (f) add_guard(then.guards, *f);
        then.divergent = true; // a barrier under the condition is not followed
        rvalue(r->getRetValue(), then);
      }
    });
    if (f)
      add_guard(c.guards, negation(*f));
    else
      c.exact = false;
    // Threads of one block that leave early never reach a later barrier.
    bool per_thread = !f || !block_uniform(*f, c);
    c.returned = c.returned || per_thread;
  }
  static bool returns(const Stmt* s) {
    if (isa<ReturnStmt>(s)) return true;
    if (const auto* cs = dyn_cast<CompoundStmt>(s))
      return cs->size() == 1 && isa<ReturnStmt>(cs->body_front());
    return false;
  }

  void stmt(const Stmt* s, const Ctx& c) {
    if (!s) return;
    if (isa<NullStmt>(s)) return;
    if (const auto* cs = dyn_cast<CompoundStmt>(s)) {
      Ctx inner = c;
      block_items(cs, inner);
      // The block's own names are not visible after it: a later access's scope must see
      // the declaration in force there, not one of an ended block of the same name.
      for (const Stmt* child : cs->body())
        if (const auto* ds = dyn_cast<DeclStmt>(child))
          for (const Decl* d : ds->decls())
            if (const auto* v = dyn_cast<VarDecl>(d)) env_.erase(v);
      return;
    }
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      guarded(s, [&] {
        for (const Decl* d : ds->decls()) {
          if (const auto* v = dyn_cast<VarDecl>(d))
            var_decl(v, c);
          else if (!isa<TypeDecl>(d) && !isa<StaticAssertDecl>(d))
            throw NotAffine{std::string("the declaration kind '") + d->getDeclKindName() + "'"};
        }
      });
      return;
    }
    if (const auto* e = dyn_cast<Expr>(s)) {
      guarded(s, [&] { rvalue(e, c); });
      return;
    }
    if (const auto* i = dyn_cast<IfStmt>(s)) {
      if (i->getInit() || i->getConditionVariable()) {
        unsupported(s, "an if with an initialiser or a condition variable");
        return;
      }
      bool ok = true;
      guarded(i->getCond(), [&] {
        ok = false;
        rvalue(i->getCond(), c);
        ok = true;
      });
      if (!ok) return;
      auto f = formula(i->getCond());
      Ctx t = c, e = c;
      // A condition every thread of a block evaluates alike keeps them together: a
      // barrier under it is no divergence (but separates nothing, as the other branch
      // has none).
      bool uniform = !c.divergent && !c.returned && f && block_uniform(*f, c);
      t.divergent = e.divergent = !uniform;
      t.uniform = e.uniform = c.uniform || uniform;
      ++t.depth;
      ++e.depth;
      if (f) {
        add_guard(t.guards, *f);
        add_guard(e.guards, negation(*f));
      } else {
        t.exact = e.exact = false;
      }
      // The locals after the if: where the branches leave different values, any value.
      // Under a uniform condition both branches start in the barrier interval before
      // the if (no thread of the block runs the other branch, and the guards say so).
      std::map<const ValueDecl*, Poly> before = env_;
      int p0 = phase_;
      stmt(i->getThen(), t);
      int p_then = phase_;
      phase_ = p0;
      std::map<const ValueDecl*, Poly> after_then = std::move(env_);
      env_ = std::move(before);
      if (i->getElse()) stmt(i->getElse(), e);
      if (phase_ != p_then) {
        // Branches with different numbers of barriers: the intervals after the if
        // depend on the branch; followed only when no access comes after the if.
        if (!uneven_) {
          uneven_ = i;
          uneven_accesses_ = k_.accesses.size();
        }
        phase_ = std::max(phase_, p_then);
      }
      std::map<const ValueDecl*, Poly> joined;
      for (const auto& [v, p] : after_then)
        if (auto it = env_.find(v); it != env_.end()) joined[v] = it->second == p ? p : any();
      env_ = std::move(joined);
      return;
    }
    if (const auto* f = dyn_cast<ForStmt>(s)) {
      for_stmt(f, c);
      return;
    }
    if (const auto* w = dyn_cast<WhileStmt>(s)) {
      if (w->getConditionVariable()) {
        unsupported(s, "a while with a condition variable");
        return;
      }
      any_loop(w, w->getCond(), nullptr, w->getBody(), c, false);
      return;
    }
    if (const auto* d = dyn_cast<DoStmt>(s)) {
      any_loop(d, d->getCond(), nullptr, d->getBody(), c, true);
      return;
    }
    // Jumps: what follows them in their block or loop may not run, which the enclosing
    // loop's inexactness (has_jump) already says; they touch no memory.
    if (isa<BreakStmt>(s) || isa<ContinueStmt>(s) || isa<GotoStmt>(s)) {
      mark(s, "jump (no memory)");
      return;
    }
    // A label: reached by a jump from anywhere in the function, so under none of the
    // enclosing conditions, with any value in the locals the function assigns.
    if (const auto* l = dyn_cast<LabelStmt>(s)) {
      if (!c.loops.empty()) {
        unsupported(s, "a label inside a loop it summarises");
        return;
      }
      const Stmt* body = inlined_.empty() ? body_ : inlined_.back()->getBody();
      forget_assigned(body, "");
      Ctx inner = c;
      inner.guards.clear();
      inner.exact = false;
      inner.divergent = true;
      stmt(l->getSubStmt(), inner);
      return;
    }
    if (isa<ReturnStmt>(s)) {
      unsupported(s, inlined_.empty() ? "a return other than `if (cond) return;` in the kernel body"
                                      : "a return inside a nested statement of a device function");
      return;
    }
    unsupported(s, std::string("the statement '") + s->getStmtClassName() + "'");
  }

  void var_decl(const VarDecl* v, const Ctx& c) {
    QualType t = v->getType();
    std::string n = v->getNameAsString();
    const Expr* init = v->getInit();
    if (v->hasAttr<CUDASharedAttr>() || v->hasGlobalStorage()) {
      bool shared = v->hasAttr<CUDASharedAttr>();
      object(v, n, shared ? Space::Shared : Space::Global);
      // A trivial default construction writes nothing (CUDA allows no other for
      // __shared__ variables).
      if (const auto* cc = dyn_cast_or_null<CXXConstructExpr>(init);
          cc && cc->getConstructor()->isTrivial() && cc->getNumArgs() == 0) {
        cover(cc, "trivial default construction (no access)");
        return;
      }
      if (init) throw NotAffine{"the variable '" + n + "' with an initialiser", init};
      return;
    }
    depth_of_[v] = c.depth;
    escaped_.erase(v); // a new object
    env_.erase(v);
    ptrs_.erase(v);
    bad_ptrs_.erase(v);
    refs_.erase(v);
    if (t->isReferenceType()) {
      if (!init) throw NotAffine{"the reference '" + n + "' without a target", v->getInit()};
      escape(init);
      refs_[v] = lvalue(init, c);
      return;
    }
    if (t->isPointerType() || is_fm_mem(t)) {
      if (!init) {
        bad_ptrs_[v] = "the pointer '" + n + "' has no initial value";
        return;
      }
      try {
        ptrs_[v] = is_fm_mem(t) ? block(init, c) : ptr(init, c);
      } catch (const NotAffine& e) {
        // Followed only if it is used; what the initial value reads is read here.
        bad_ptrs_[v] = "the pointer '" + n + "': " + e.why;
        rvalue(init, c);
      }
      return;
    }
    if (const auto* r = t->getAsCXXRecordDecl(); r && r->hasNonTrivialDestructor())
      throw NotAffine{"the local '" + n + "' with a destructor", init};
    if (const auto* cc = dyn_cast_or_null<CXXConstructExpr>(init))
      construct(cc, std::nullopt, c);
    else if (init)
      rvalue(init, c);
    // An integer without an initial value holds any value.
    if (t->isIntegerType()) env_[v] = init ? poly(init) : any();
  }

  /// `for (int k = a; k < b; k += s)` and the like.
  void for_stmt(const ForStmt* f, const Ctx& c) {
    const VarDecl* var = nullptr;
    const Expr* init = nullptr;
    if (const auto* ds = dyn_cast_or_null<DeclStmt>(f->getInit());
        ds && ds->decl_begin() != ds->decl_end()) {
      // `for (int k = a, n = e; ...)`: the first is the counter, the others locals.
      var = dyn_cast<VarDecl>(*ds->decl_begin());
      if (var) init = var->getInit();
      for (auto d = std::next(ds->decl_begin()); d != ds->decl_end(); ++d)
        if (const auto* other = dyn_cast<VarDecl>(*d)) guarded(ds, [&] { var_decl(other, c); });
    } else if (const auto* b = dyn_cast_or_null<BinaryOperator>(f->getInit());
               b && b->getOpcode() == BO_Assign) {
      if (const auto* d = dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts()))
        var = dyn_cast<VarDecl>(d->getDecl());
      init = b->getRHS();
    }
    LoopCtx l;
    std::string why;
    bool init_done = false;
    std::optional<Formula> head; // a superset of the counter's values at the loop's head
    // GPUVerify's invariants come first in the condition: `(__invariant(e), k < n)`.
    const Expr* cond_expr = f->getCond();
    std::vector<const CallExpr*> invariants;
    while (const auto* b =
               dyn_cast_or_null<BinaryOperator>(cond_expr ? cond_expr->IgnoreParens() : nullptr)) {
      if (b->getOpcode() != BO_Comma || !only_annotations(b->getLHS())) break;
      cover(b->getLHS(), "GPUVerify annotation (a specification: not executed, not trusted)");
      mark(b, "loop condition (no memory)");
      annotation_calls(b->getLHS(), invariants);
      cond_expr = b->getRHS();
    }
    try {
      if (!var || !init || !var->getType()->isIntegerType())
        throw NotAffine{"the loop has no integer counter initialised in its header"};
      if (has_jump(f->getBody()) && has_barrier(f->getBody()))
        throw NotAffine{"the loop leaves its body early and has a barrier"};
      // The condition and the increment are evaluated again after every iteration: a
      // name they use that the body assigns (or whose address is taken) changes them.
      {
        std::set<const ValueDecl*> changed;
        assigned_in(f->getBody(), changed);
        if (changed.count(var)) throw NotAffine{"the counter is assigned in the body"};
        std::function<void(const Stmt*)> uses = [&](const Stmt* x) {
          if (!x) return;
          if (const auto* d = dyn_cast<DeclRefExpr>(x);
              d && d->getDecl() != var &&
              (changed.count(d->getDecl()) || escaped_.count(d->getDecl())))
            throw NotAffine{"'" + d->getDecl()->getNameAsString() +
                            "', which the loop's condition or step uses, changes in its body"};
          for (const Stmt* child : x->children())
            uses(child);
        };
        uses(cond_expr);
        uses(f->getInc());
      }
      rvalue(init, c);
      init_done = true;
      Poly a = poly(init);
      l.var = var->getNameAsString();
      const auto* cond =
          dyn_cast_or_null<BinaryOperator>(cond_expr ? cond_expr->IgnoreParenImpCasts() : nullptr);
      if (!cond) throw NotAffine{"the loop condition is not a comparison"};
      // `k + e1 REL e2` (the counter with coefficient 1 on the left): k REL e2 - e1.
      Poly k0 = Poly::var(l.var);
      auto saved = env_.find(var) != env_.end() ? std::optional<Poly>(env_[var]) : std::nullopt;
      env_[var] = k0;
      Poly left = poly(cond->getLHS()), right = poly(cond->getRHS());
      if (saved)
        env_[var] = *saved;
      else
        env_.erase(var);
      Poly rest = left.substitute({{l.var, Poly(0)}});
      if (!(left - rest == k0) || mentions_name(right, l.var))
        throw NotAffine{"the loop condition does not compare the counter"};
      Poly b = right - rest;
      // The increment.
      const Expr* inc = f->getInc() ? f->getInc()->IgnoreParenImpCasts() : nullptr;
      Poly step = 0;
      bool geometric = false, up = true, doubling = false;
      if (const auto* u = dyn_cast_or_null<UnaryOperator>(inc)) {
        if (u->isIncrementOp())
          step = 1;
        else if (u->isDecrementOp()) {
          step = 1;
          up = false;
        }
      } else if (const auto* ca = dyn_cast_or_null<CompoundAssignOperator>(inc)) {
        if (ca->getOpcode() == BO_AddAssign)
          step = poly(ca->getRHS());
        else if (ca->getOpcode() == BO_SubAssign) {
          step = poly(ca->getRHS());
          up = false;
        } else if ((ca->getOpcode() == BO_ShrAssign &&
                    poly(ca->getRHS()).constant() == std::optional<int64_t>(1)) ||
                   (ca->getOpcode() == BO_DivAssign &&
                    poly(ca->getRHS()).constant() == std::optional<int64_t>(2)))
          geometric = true;
        else if ((ca->getOpcode() == BO_ShlAssign &&
                  poly(ca->getRHS()).constant() == std::optional<int64_t>(1)) ||
                 (ca->getOpcode() == BO_MulAssign &&
                  poly(ca->getRHS()).constant() == std::optional<int64_t>(2)))
          geometric = doubling = true;
      }
      if (step == Poly(0) && !geometric)
        throw NotAffine{"the loop increment is not `k++`, `k += s`, `k--`, `k -= s`, `k >>= 1` "
                        "or `k /= 2`"};
      BinaryOperatorKind op = cond->getOpcode();
      Poly k = Poly::var(l.var);
      if (doubling) {
        if (op != BO_LT && op != BO_LE) throw NotAffine{"a doubling loop must test `k < b`"};
        l.geometric = l.doubling = true;
        l.inclusive = op == BO_LE;
        l.lower = a;
        l.count = b;
        // From a start >= 0 the counter only grows (from a negative one it falls).
        l.facts = {Formula::cmp(k, op == BO_LT ? Rel::Lt : Rel::Le, b),
                   Formula::disj({lt(a, Poly(0)), le(a, k)})};
      } else if (geometric) {
        if (op != BO_GT && op != BO_GE) throw NotAffine{"a halving loop must test `k > b`"};
        l.geometric = true;
        l.inclusive = op == BO_GE;
        l.lower = a;
        l.count = b;
        l.facts = {Formula::cmp(k, op == BO_GT ? Rel::Gt : Rel::Ge, b), le(k, a)};
      } else if (up && (op == BO_LT || op == BO_LE)) {
        Poly end = op == BO_LT ? b : b + 1; // exclusive
        l.lower = a;
        l.step = step;
        l.count = step == Poly(1) ? end - a : Poly::div(end - a + step - 1, step);
        l.facts = {le(a, k), lt(k, end)};
        // a + j*step after iteration j (j = 0: the start; 1 <= j <= count).
        if (auto s = step.constant(); s && *s >= 1) head = at_head(k, a, step, l.count);
      } else if (!up && (op == BO_GT || op == BO_GE) && step == Poly(1)) {
        Poly last = op == BO_GT ? b + 1 : b; // inclusive smallest value
        l.lower = last;
        l.count = a - last + 1;
        l.facts = {le(last, k), le(k, a)};
        head = at_head(k, a, Poly(-1), l.count);
      } else {
        throw NotAffine{"the loop's condition and increment do not bound the counter"};
      }
    } catch (const NotAffine& n) {
      why = n.why;
    }
    if (!why.empty()) {
      // Not summarised (`why`): any number of iterations; its condition, invariants
      // included (not checked, as a `while` loop's), evaluated at each.
      if (init_done)
        env_[var] = any();
      else if (const auto* ds = dyn_cast_or_null<DeclStmt>(f->getInit()); ds && var)
        guarded(ds, [&] { var_decl(var, c); });
      else if (f->getInit())
        stmt(f->getInit(), c);
      any_loop(f, f->getCond(), f->getInc(), f->getBody(), c, false);
      return;
    }
    // The condition and the increment are polynomials: they touch no memory.
    cover(f->getCond(), "loop condition (no memory)");
    cover(f->getInc(), "loop increment (no memory)");
    forget_assigned(f->getBody(), l.var);
    l.barrier = has_top_barrier(f->getBody());
    env_[var] = Poly::var(l.var);
    loop_invariants(invariants, f->getBody(), var, l, head, c);
    Ctx inner = c;
    ++inner.depth;
    inner.loops.push_back(l);
    if (l.barrier) {
      if (c.divergent || c.returned || c.uniform) {
        unsupported(f, "a loop with __syncthreads() inside a condition or after a "
                       "thread-dependent early return (divergence)");
        return;
      }
      // Every thread of the block must run the same iterations.
      for (const Poly* p : {&l.lower, &l.count, &l.step})
        for (const std::string& v : p->free_vars())
          if (v.rfind("threadIdx_", 0) == 0 || v.rfind("fm_any_", 0) == 0) {
            unsupported(f, "a loop with __syncthreads() whose iterations differ between the "
                           "threads of a block (barrier divergence)");
            return;
          }
      if (phase_accesses_ > 0)
        k_.unknown.push_back({pos(f->getBeginLoc()),
                              "accesses before this loop are not separated from its first "
                              "iteration by a barrier"});
      ++phase_;
      phase_accesses_ = 0;
      block_items(f->getBody(), inner);
      if (phase_accesses_ > 0)
        k_.unknown.push_back({pos(f->getBeginLoc()),
                              "accesses after the last barrier of the loop body meet the next "
                              "iteration's"});
      ++phase_;
      phase_accesses_ = 0;
    } else {
      inner.divergent = true;
      if (has_jump(f->getBody())) inner.exact = false;
      stmt(f->getBody(), inner);
    }
    // After the loop: what it assigns, its counter included, holds any value.
    forget_assigned(f->getBody(), "");
    env_[var] = any();
  }

  /// A loop it does not summarise (`while`, `do`, a `for` whose counter it cannot
  /// bound): any number of iterations. What the loop assigns holds any value at the
  /// start of each iteration and after the loop; its accesses are over-approximations
  /// (not exact), under the condition as a guard where it is a formula.
  void any_loop(const Stmt* loop, const Expr* cond, const Expr* inc, const Stmt* body, const Ctx& c,
                bool body_first) {
    if (has_barrier(loop)) {
      unsupported(loop, "__syncthreads() in a loop whose iterations it cannot count (barrier "
                        "divergence is not excluded)");
      return;
    }
    forget_assigned(loop, "");
    Ctx inner = c;
    inner.divergent = true;
    inner.exact = false;
    ++inner.depth;
    if (cond) {
      guarded(cond, [&] { rvalue(cond, inner); });
      // A `do` body runs once before its condition is tested.
      if (!body_first)
        if (auto g = formula(cond)) add_guard(inner.guards, *g);
    }
    stmt(body, inner);
    if (inc) guarded(inc, [&] { rvalue(inc, inner); });
    forget_assigned(loop, "");
  }

  /// The counter `k` at a loop's head: `a + j*step` for some j with j == 0 or 1 <= j <=
  /// count (`j` is a name of its own, any value the formula allows).
  static Formula at_head(const Poly& k, const Poly& a, const Poly& step, const Poly& count) {
    Poly j = Poly::var("fm_head_" + k.to_string());
    return Formula::conj({Formula::cmp(k, Rel::Eq, a + j * step), le(Poly(0), j),
                          Formula::disj({Formula::cmp(j, Rel::Eq, Poly(0)), le(j, count)})});
  }

  /// The annotation calls of a comma list (`__invariant(a), __invariant(b)`).
  static void annotation_calls(const Expr* e, std::vector<const CallExpr*>& out) {
    e = e->IgnoreParenImpCasts();
    if (const auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma) {
      annotation_calls(b->getLHS(), out);
      annotation_calls(b->getRHS(), out);
    } else if (const auto* call = dyn_cast<CallExpr>(e)) {
      out.push_back(call);
    }
  }

  /// GPUVerify's loop invariants of a summarised loop, checked (never trusted) at the
  /// loop's head: for every value the counter takes there (the start, and every value
  /// after an iteration), under the facts an assertion there would have. An invariant
  /// that uses GPUVerify's predicates or a local the body changes is not checked; nor are
  /// those of geometric loops.
  void loop_invariants(const std::vector<const CallExpr*>& calls, const Stmt* body,
                       const VarDecl* var, const LoopCtx& l, const std::optional<Formula>& head,
                       const Ctx& c) {
    std::set<const ValueDecl*> changed;
    assigned_in(body, changed);
    changed.erase(var);
    for (const CallExpr* call : calls) {
      std::string n = call->getDirectCallee()->getNameAsString();
      if ((n != "__invariant" && n != "__global_invariant") || call->getNumArgs() != 1) continue;
      const Expr* e = call->getArg(0);
      std::set<const FunctionDecl*> seen;
      bool changes = reaches(e, seen, [&](const Stmt* x) {
        const auto* d = dyn_cast<DeclRefExpr>(x);
        return d && (changed.count(d->getDecl()) || escaped_.count(d->getDecl()));
      });
      std::optional<Formula> cond;
      if (head && !changes && !uses_predicates(e)) cond = formula(e);
      Assertion a{pos(call->getBeginLoc()), "invariant", text(e), cond, c.guards, c.loops};
      if (head) {
        LoopCtx at_head = l;
        at_head.facts = {*head};
        a.loops.push_back(at_head);
      }
      k_.assertions.push_back(a);
    }
  }

  /// Whether `e` uses GPUVerify's predicates (`__implies`, `__no_read`, ...): then it is
  /// not a formula the prover checks.
  static bool uses_predicates(const Expr* e) {
    std::set<const FunctionDecl*> seen;
    return reaches(e, seen, [](const Stmt* x) {
      const auto* k = dyn_cast<CallExpr>(x);
      return k && is_annotation(k->getDirectCallee());
    });
  }

  /// Calls of GPUVerify's annotations only (`__invariant(a), __invariant(b)`).
  static bool only_annotations(const Expr* e) {
    e = e->IgnoreParenImpCasts();
    if (const auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma)
      return only_annotations(b->getLHS()) && only_annotations(b->getRHS());
    const auto* call = dyn_cast<CallExpr>(e);
    return call && is_annotation(call->getDirectCallee());
  }
  /// `break`, `continue`, `goto` or `return` anywhere in `s`.
  static bool has_jump(const Stmt* s) {
    if (!s) return false;
    if (isa<BreakStmt>(s) || isa<ContinueStmt>(s) || isa<GotoStmt>(s) || isa<ReturnStmt>(s))
      return true;
    for (const Stmt* k : s->children())
      if (has_jump(k)) return true;
    return false;
  }
  /// A `__syncthreads()` anywhere in `s` (calls it inlines included).
  static bool has_barrier(const Stmt* s) {
    std::set<const FunctionDecl*> seen;
    return reaches(s, seen, [](const Stmt* x) {
      const auto* call = dyn_cast<CallExpr>(x);
      return call && call->getDirectCallee() &&
             call->getDirectCallee()->getNameAsString() == "__syncthreads";
    });
  }
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
  static bool has_top_barrier(const Stmt* body) {
    auto is_barrier = [](const Stmt* s) {
      const auto* call = dyn_cast<CallExpr>(s);
      return call && call->getDirectCallee() &&
             call->getDirectCallee()->getNameAsString() == "__syncthreads";
    };
    // A `for` loop at the top of the body with such a barrier counts as one (a loop
    // nest whose bounds are uniform in the block: its barriers are met by every thread).
    auto is_barrier_loop = [](const Stmt* s) {
      const auto* f = dyn_cast<ForStmt>(s);
      return f && has_top_barrier(f->getBody());
    };
    if (is_barrier(body) || is_barrier_loop(body)) return true;
    if (const auto* cs = dyn_cast<CompoundStmt>(body))
      for (const Stmt* s : cs->body())
        if (is_barrier(s) || is_barrier_loop(s)) return true;
    return false;
  }
};

} // namespace

std::string display_names(std::string text) {
  for (const char* b : kBuiltins)
    for (const char* d : {"_x", "_y", "_z"}) {
      std::string from = std::string(b) + d, to = std::string(b) + "." + (d + 1);
      for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
        text.replace(at, from.size(), to);
    }
  return text;
}

std::vector<std::string> gpuverify_clang_args(const std::string& code) {
  std::vector<std::string> out;
  std::istringstream in(code);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("//", 0) != 0) break;
    std::istringstream w(line.substr(2));
    for (std::string word; w >> word;)
      if ((word.rfind("-D", 0) == 0 || word.rfind("-I", 0) == 0) && word.size() > 2)
        out.push_back(word);
  }
  return out;
}

std::vector<const FunctionDecl*> address_taken_functions(ASTContext& ctx) {
  AddressTaken a;
  a.TraverseDecl(ctx.getTranslationUnitDecl());
  return a.functions;
}

std::vector<const FunctionDecl*> main_file_kernels(ASTContext& ctx) {
  const SourceManager& sm = ctx.getSourceManager();
  std::vector<const FunctionDecl*> out;
  auto kernel = [&](const FunctionDecl* f) {
    if (f && f->hasAttr<CUDAGlobalAttr>() && f->doesThisDeclarationHaveABody() &&
        sm.isInMainFile(sm.getExpansionLoc(f->getLocation())))
      out.push_back(f);
  };
  std::function<void(const DeclContext*)> scan = [&](const DeclContext* dc) {
    for (const Decl* d : dc->decls()) {
      if (const auto* ls = dyn_cast<LinkageSpecDecl>(d)) {
        scan(ls);
      } else if (const auto* ns = dyn_cast<NamespaceDecl>(d)) {
        scan(ns);
      } else if (const auto* t = dyn_cast<FunctionTemplateDecl>(d)) {
        for (const FunctionDecl* inst : t->specializations())
          kernel(inst);
      } else if (const auto* f = dyn_cast<FunctionDecl>(d); f && !f->isTemplated()) {
        kernel(f);
      }
    }
  };
  scan(ctx.getTranslationUnitDecl());
  return out;
}

std::string kernel_name(const FunctionDecl* f, bool qualified) {
  std::string name;
  llvm::raw_string_ostream os(name);
  f->getNameForDiagnostic(os, f->getASTContext().getPrintingPolicy(), qualified);
  return os.str();
}

std::unique_ptr<ASTUnit> parse_device_code(const std::string& code, const std::string& file,
                                           const std::vector<std::string>& clang_args,
                                           std::vector<std::string>& errors) {
  std::vector<std::string> args = {"-x",
                                   "cuda",
                                   "--cuda-device-only",
                                   "-nocudainc",
                                   "-nocudalib",
                                   "--cuda-gpu-arch=sm_70",
                                   "-std=c++17",
                                   "-include",
                                   kHeaderPath,
                                   "-Wno-unknown-cuda-version",
                                   "-I/funmem-extract/include"};
  if (std::string rd = FUNMEM_CLANG_RESOURCE_DIR; !rd.empty()) {
    args.push_back("-resource-dir");
    args.push_back(rd);
  }
  std::vector<std::string> header = gpuverify_clang_args(code);
  args.insert(args.end(), header.begin(), header.end());
  args.insert(args.end(), clang_args.begin(), clang_args.end());
  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  IntrusiveRefCntPtr<DiagnosticOptions> diag_opts = new DiagnosticOptions();
  diag_opts->ShowColors = false;
  TextDiagnosticPrinter printer(diag_os, diag_opts.get());
  // `#include "cuda.h"` and its kin: the bundled header, included first, has it all.
  const char* empty = "#pragma once\n";
  tooling::FileContentMappings files = {{kHeaderPath, cuda_min_header()},
                                        {kRtModelPath, rt_model_header()},
                                        {"/funmem-extract/include/cuda.h", empty},
                                        {"/funmem-extract/include/cuda_runtime.h", empty}};
  std::unique_ptr<ASTUnit> ast = tooling::buildASTFromCodeWithArgs(
      code, args, file, "funmem-extract", std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(), files, &printer);
  diag_os.flush();
  // Errors (not warnings) are the tool's.
  size_t start = 0;
  while (start < diag_text.size()) {
    size_t end = diag_text.find('\n', start);
    std::string line = diag_text.substr(start, end == std::string::npos ? end : end - start);
    if (line.find(": error: ") != std::string::npos ||
        line.find(": fatal error: ") != std::string::npos)
      errors.push_back(line);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if ((!ast || ast->getDiagnostics().hasErrorOccurred()) && errors.empty())
    errors.push_back(file + ": error: clang could not parse the file");
  return ast;
}

ExtractResult extract(const std::string& code, const std::string& file,
                      const std::vector<std::string>& clang_args, const ExtractOptions& options) {
  ExtractResult r;
  std::unique_ptr<ASTUnit> ast = parse_device_code(code, file, clang_args, r.errors);
  if (!ast || ast->getDiagnostics().hasErrorOccurred()) return r;
  for (const FunctionDecl* f : main_file_kernels(ast->getASTContext())) {
    KernelSummary k;
    Extractor(ast->getASTContext(), k, options).run(f);
    r.kernels.push_back(std::move(k));
  }
  return r;
}

} // namespace funmem::frontend
