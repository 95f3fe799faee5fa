// Access extraction from CUDA kernels with Clang LibTooling (see extract.h).
#include "frontend/extract.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/Lexer.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

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

const char* kHeaderPath = "/funmem-extract/funmem_cuda_min.h";

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

/// Why an expression is not a polynomial.
struct NotAffine {
  std::string why;
};

class Extractor {
public:
  Extractor(ASTContext& ctx, KernelSummary& k) : ctx_(ctx), sm_(ctx.getSourceManager()), k_(k) {}

  void run(const FunctionDecl* f) {
    k_.name = f->getNameAsString();
    k_.pos = pos(f->getLocation());
    for (const ParmVarDecl* p : f->parameters()) {
      std::string n = p->getNameAsString();
      QualType t = p->getType();
      if (t->isPointerType() || is_fm_mem(t)) {
        k_.pointer_params.push_back(n);
        arrays_[p] = {n, Space::Global, 0};
      } else if (t->isIntegerType()) {
        k_.scalar_params.push_back(n);
        env_[p] = Poly::var(n);
      } else {
        other_params_.insert(p);
      }
    }
    Ctx c;
    block_items(f->getBody(), c);
  }

private:
  struct ArrayRef {
    std::string name;
    Space space;
    int64_t row = 0; // 2-d shared arrays: the inner dimension
  };
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
    bool divergent = false; // inside an if or a loop body below its top level
    bool returned = false;  // after `if (cond) return;` with a thread-dependent cond
  };

  ASTContext& ctx_;
  SourceManager& sm_;
  KernelSummary& k_;
  std::map<const ValueDecl*, Poly> env_;           // affine integer values
  std::map<const ValueDecl*, std::string> opaque_; // integers we cannot follow, and why
  std::map<const ValueDecl*, ArrayRef> arrays_;    // pointer parameters, shared arrays
  std::map<const ValueDecl*, std::pair<ArrayRef, Poly>> aliases_; // p = a + e
  std::set<const ValueDecl*> other_params_;
  std::map<const ValueDecl*, int> depth_of_; // the depth of each local's declaration
  std::set<std::string> names_;
  int phase_ = 0;
  int phase_accesses_ = 0; // accesses since the last barrier

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
  void unsupported(const Stmt* s, const std::string& what) {
    k_.unsupported.push_back({pos(s->getBeginLoc()), what});
  }
  void use_name(const std::string& n) {
    if (names_.insert(n).second) k_.thread_names.push_back(n);
  }

  // ------------------------------------------------------------ expressions

  /// The built-in `threadIdx.x` and its kin as `threadIdx_x`.
  std::optional<std::string> builtin(const Expr* e) const {
    const auto* m = dyn_cast<MemberExpr>(e->IgnoreParenImpCasts());
    if (!m) return std::nullopt;
    const auto* d = dyn_cast<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts());
    if (!d) return std::nullopt;
    std::string base = d->getDecl()->getNameAsString();
    for (const char* b : kBuiltins)
      if (base == b) return base + "_" + m->getMemberDecl()->getNameAsString();
    return std::nullopt;
  }

  Poly poly(const Expr* e0) {
    const Expr* e = e0->IgnoreParenImpCasts();
    if (const auto* c = dyn_cast<ExplicitCastExpr>(e)) return poly(c->getSubExpr());
    if (auto b = builtin(e)) {
      use_name(*b);
      return Poly::var(*b);
    }
    if (const auto* l = dyn_cast<IntegerLiteral>(e)) return Poly(l->getValue().getSExtValue());
    if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
      const ValueDecl* v = d->getDecl();
      if (auto it = env_.find(v); it != env_.end()) return it->second;
      if (auto it = opaque_.find(v); it != opaque_.end()) throw NotAffine{it->second};
      if (const auto* ec = dyn_cast<EnumConstantDecl>(v))
        return Poly(ec->getInitVal().getSExtValue());
      throw NotAffine{"'" + v->getNameAsString() + "' is not an integer the extractor follows"};
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
        if (!c || *c < 0 || *c > 30) throw NotAffine{"a shift by a non-constant amount"};
        Poly p = poly(b->getLHS());
        return b->getOpcode() == BO_Shl ? p * Poly(int64_t{1} << *c)
                                        : Poly::div(p, Poly(int64_t{1} << *c));
      }
      default:
        throw NotAffine{"the operator '" + BinaryOperator::getOpcodeStr(b->getOpcode()).str() +
                        "'"};
      }
    }
    if (const auto* u = dyn_cast<UnaryOperator>(e)) {
      if (u->getOpcode() == UO_Minus) return -poly(u->getSubExpr());
      if (u->getOpcode() == UO_Plus) return poly(u->getSubExpr());
    }
    if (isa<CXXScalarValueInitExpr>(e)) return Poly(0);
    if (const auto* c = dyn_cast<CallExpr>(e)) {
      if (const FunctionDecl* f = c->getDirectCallee()) {
        std::string n = f->getNameAsString();
        unsigned args = c->getNumArgs();
        auto arg = [&](unsigned k) { return poly(c->getArg(k)); };
        if ((n == "min" || n == "fm_min") && args == 2) return Poly::min(arg(0), arg(1));
        if ((n == "max" || n == "fm_max") && args == 2) return Poly::max(arg(0), arg(1));
        // funmem-cuda's checked arithmetic (the last arguments are check sites): the
        // value is the mathematical one whenever the run does not stop with an error.
        if (n == "fm_add" && args == 3) return arg(0) + arg(1);
        if (n == "fm_sub" && args == 3) return arg(0) - arg(1);
        if (n == "fm_mul" && args == 3) return arg(0) * arg(1);
        if (n == "fm_neg" && args == 2) return -arg(0);
        if ((n == "fm_bound" || n == "fm_i32") && args == 2) return arg(0);
        if (n == "fm_div" && args == 4) return Poly::div(arg(0), arg(1));
        if (n == "fm_mod" && args == 4) return Poly::mod(arg(0), arg(1));
        if (n == "fm_ld") throw NotAffine{"a value read from memory (a data-dependent index)"};
      }
    }
    if (isa<ArraySubscriptExpr>(e) ||
        (isa<UnaryOperator>(e) && cast<UnaryOperator>(e)->getOpcode() == UO_Deref))
      throw NotAffine{"a value read from memory (a data-dependent index)"};
    throw NotAffine{"the expression '" + text(e) + "'"};
  }

  std::optional<Formula> formula(const Expr* e0) {
    const Expr* e = e0->IgnoreParenImpCasts();
    try {
      if (const auto* b = dyn_cast<BinaryOperator>(e)) {
        switch (b->getOpcode()) {
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
    } catch (const NotAffine&) {
      return std::nullopt;
    }
    return std::nullopt;
  }

  /// The array and element index an lvalue designates, or nullopt (not memory we track).
  std::optional<std::pair<ArrayRef, Poly>> place(const Expr* e0, const Stmt* at) {
    const Expr* e = e0->IgnoreParenImpCasts();
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(e)) {
      const Expr* base = a->getBase()->IgnoreParenImpCasts();
      // tile[i][j] of a 2-d shared array.
      if (const auto* inner = dyn_cast<ArraySubscriptExpr>(base)) {
        auto in = place_base(inner->getBase(), at);
        if (!in) return std::nullopt;
        if (in->first.row <= 0) {
          unsupported(at, "indexing a row of '" + in->first.name + "' it cannot follow");
          return std::nullopt;
        }
        return std::make_pair(in->first, in->second + poly(inner->getIdx()) * Poly(in->first.row) +
                                             poly(a->getIdx()));
      }
      auto b = place_base(base, at);
      if (!b) return std::nullopt;
      return std::make_pair(b->first, b->second + poly(a->getIdx()));
    }
    if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Deref) {
      const Expr* p = u->getSubExpr()->IgnoreParenImpCasts();
      if (const auto* b = dyn_cast<BinaryOperator>(p);
          b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub)) {
        auto base = place_base(b->getLHS(), at);
        if (!base) return std::nullopt;
        Poly off = poly(b->getRHS());
        return std::make_pair(base->first, base->second + (b->getOpcode() == BO_Add ? off : -off));
      }
      return place_base(p, at);
    }
    return std::nullopt;
  }
  std::optional<std::pair<ArrayRef, Poly>> place_base(const Expr* e0, const Stmt* at) {
    const Expr* e = e0->IgnoreParenImpCasts();
    if (const auto* cc = dyn_cast<CXXConstructExpr>(e); cc && cc->getNumArgs() == 1)
      e = cc->getArg(0)->IgnoreParenImpCasts();
    if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
      const ValueDecl* v = d->getDecl();
      if (auto it = arrays_.find(v); it != arrays_.end())
        return std::make_pair(it->second, Poly(0));
      if (auto it = aliases_.find(v); it != aliases_.end()) return it->second;
      if (v->getType()->isPointerType() || v->getType()->isArrayType())
        unsupported(at, "pointer '" + v->getNameAsString() + "' whose target it cannot follow");
      return std::nullopt;
    }
    if (const auto* b = dyn_cast<BinaryOperator>(e);
        b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub)) {
      auto base = place_base(b->getLHS(), at);
      if (!base) return std::nullopt;
      Poly off = poly(b->getRHS());
      return std::make_pair(base->first, base->second + (b->getOpcode() == BO_Add ? off : -off));
    }
    unsupported(at, "pointer arithmetic it cannot follow: '" + text(e) + "'");
    return std::nullopt;
  }

  void access(const Expr* lv, bool write, const Ctx& c) {
    std::optional<std::pair<ArrayRef, Poly>> p;
    try {
      p = place(lv, lv);
    } catch (const NotAffine& n) {
      unsupported(lv, "index of '" + text(lv) + "': " + n.why);
      return;
    }
    if (p) access_at(p->first, p->second, write, c, lv);
  }
  void access_at(const ArrayRef& r, const Poly& index, bool write, const Ctx& c, const Expr* at) {
    Access a;
    a.array = r.name;
    a.space = r.space;
    a.write = write;
    a.index = index;
    a.guards = c.guards;
    a.exact_guards = c.exact;
    a.loops = c.loops;
    a.phase = phase_;
    a.pos = pos(at->getBeginLoc());
    a.text = text(at);
    if (write)
      for (const auto& [d, v] : env_)
        if (isa<VarDecl>(d)) a.scope[d->getNameAsString()] = v;
    k_.accesses.push_back(std::move(a));
    ++phase_accesses_;
  }

  /// The reads of an rvalue expression (and writes of assignments inside it).
  void expr(const Expr* e0, const Ctx& c) {
    if (!e0) return;
    const Expr* e = e0->IgnoreParenImpCasts();
    if (const auto* b = dyn_cast<BinaryOperator>(e)) {
      if (b->isAssignmentOp()) {
        assign(b->getLHS(), b->getRHS(), b->isCompoundAssignmentOp(), c, b);
        return;
      }
      expr(b->getLHS(), c);
      expr(b->getRHS(), c);
      return;
    }
    if (const auto* u = dyn_cast<UnaryOperator>(e)) {
      if (u->isIncrementDecrementOp()) {
        assign(u->getSubExpr(), nullptr, true, c, u);
        return;
      }
      if (u->getOpcode() == UO_Deref) {
        access(e, false, c);
        index_reads(u->getSubExpr(), c);
        return;
      }
      if (u->getOpcode() == UO_AddrOf) {
        unsupported(e, "taking the address '" + text(e) + "'");
        return;
      }
      expr(u->getSubExpr(), c);
      return;
    }
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(e)) {
      access(e, false, c);
      index_reads(a, c);
      return;
    }
    if (const auto* call = dyn_cast<CallExpr>(e)) {
      call_expr(call, c);
      return;
    }
    if (const auto* co = dyn_cast<ConditionalOperator>(e)) {
      expr(co->getCond(), c);
      expr(co->getTrueExpr(), c);
      expr(co->getFalseExpr(), c);
      return;
    }
    for (const Stmt* child : e->children())
      if (const auto* ce = dyn_cast_or_null<Expr>(child)) expr(ce, c);
  }
  /// Reads inside an access's index expressions (a[b[i]] reads b).
  void index_reads(const Expr* e, const Ctx& c) {
    const Expr* x = e->IgnoreParenImpCasts();
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(x)) {
      expr(a->getIdx(), c);
      const Expr* base = a->getBase()->IgnoreParenImpCasts();
      if (isa<ArraySubscriptExpr>(base)) index_reads(base, c);
      return;
    }
    for (const Stmt* child : x->children())
      if (const auto* ce = dyn_cast_or_null<Expr>(child); ce && !isa<DeclRefExpr>(ce)) expr(ce, c);
  }

  void call_expr(const CallExpr* call, const Ctx& c) {
    const FunctionDecl* f = call->getDirectCallee();
    std::string n = f ? f->getNameAsString() : "";
    if (n == "__syncthreads") {
      barrier(call, c);
      return;
    }
    // funmem-cuda's element loads and stores: fm_ld<T>(m, i, site), fm_st<T>(m, i, v, site).
    if ((n == "fm_ld" && call->getNumArgs() == 3) || (n == "fm_st" && call->getNumArgs() == 4)) {
      for (unsigned k = 1; k < call->getNumArgs(); ++k)
        expr(call->getArg(k), c);
      try {
        auto base = place_base(call->getArg(0), call);
        if (base)
          access_at(base->first, base->second + poly(call->getArg(1)), n == "fm_st", c, call);
      } catch (const NotAffine& e) {
        unsupported(call, "index of '" + text(call) + "': " + e.why);
      }
      return;
    }
    if (n.rfind("atomic", 0) == 0 || n.rfind("__shfl", 0) == 0 || n == "__syncwarp" ||
        n == "__threadfence" || n.empty()) {
      unsupported(call, (n.empty() ? std::string("an indirect call") : "'" + n + "'") +
                            " (atomics, warp intrinsics and fences are not modelled)");
      for (const Expr* a : call->arguments())
        expr(a, c);
      return;
    }
    for (const Expr* a : call->arguments()) {
      if (a->getType()->isPointerType()) {
        unsupported(call, "a call of '" + n + "' with a pointer argument");
        return;
      }
      expr(a, c);
    }
    if (f && f->hasBody() && !f->getBody()->children().empty() && f->getNameAsString() != "min" &&
        f->getNameAsString() != "max") {
      // A device function with a body: its accesses are not followed.
      bool touches = false;
      for (const ParmVarDecl* p : f->parameters())
        touches = touches || p->getType()->isPointerType();
      if (touches) unsupported(call, "a call of the device function '" + n + "'");
    }
  }

  void assign(const Expr* lhs0, const Expr* rhs, bool compound, const Ctx& c, const Expr* at) {
    const Expr* lhs = lhs0->IgnoreParenImpCasts();
    if (rhs) expr(rhs, c);
    if (const auto* d = dyn_cast<DeclRefExpr>(lhs)) {
      const ValueDecl* v = d->getDecl();
      for (const LoopCtx& l : c.loops)
        if (l.var == v->getNameAsString()) {
          unsupported(at, "the loop counter '" + l.var + "' is assigned in the loop body");
          return;
        }
      if (env_.count(v) || v->getType()->isIntegerType()) {
        // A scalar local changes: later indices through it cannot be followed unless
        // it is a plain definition outside any loop and condition.
        env_.erase(v);
        opaque_[v] = "'" + v->getNameAsString() + "' is assigned after its definition";
        auto level = depth_of_.find(v);
        if (!compound && rhs &&
            (level != depth_of_.end() ? level->second == c.depth
                                      : c.loops.empty() && !c.divergent)) {
          try {
            env_[v] = poly(rhs);
            opaque_.erase(v);
          } catch (const NotAffine&) {
          }
        }
      }
      if (aliases_.count(v)) {
        aliases_.erase(v);
        unsupported(at, "the pointer '" + v->getNameAsString() + "' is reassigned");
      }
      return;
    }
    if (compound) access(lhs, false, c);
    access(lhs, true, c);
    index_reads(lhs, c);
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
    ++phase_;
    phase_accesses_ = 0;
  }

  // ------------------------------------------------------------ statements

  void block_items(const Stmt* s, Ctx c) {
    if (const auto* cs = dyn_cast<CompoundStmt>(s)) {
      for (const Stmt* child : cs->body()) {
        // `if (cond) return;`: the rest runs only when cond is false.
        if (const auto* i = dyn_cast<IfStmt>(child); i && !i->getElse() && returns(i->getThen())) {
          expr(i->getCond(), c);
          auto f = formula(i->getCond());
          if (f)
            add_guard(c.guards, negation(*f));
          else
            c.exact = false;
          // Threads of one block that leave early never reach a later barrier.
          bool per_thread = !f;
          if (f)
            for (const std::string& v : f->free_vars())
              per_thread = per_thread || v.rfind("threadIdx_", 0) == 0;
          c.returned = c.returned || per_thread;
          continue;
        }
        stmt(child, c);
      }
      return;
    }
    stmt(s, c);
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
      return;
    }
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d)) var_decl(v, c);
      return;
    }
    if (const auto* e = dyn_cast<Expr>(s)) {
      expr(e, c);
      return;
    }
    if (const auto* i = dyn_cast<IfStmt>(s)) {
      expr(i->getCond(), c);
      auto f = formula(i->getCond());
      Ctx t = c, e = c;
      t.divergent = e.divergent = true;
      ++t.depth;
      ++e.depth;
      if (f) {
        add_guard(t.guards, *f);
        add_guard(e.guards, negation(*f));
      } else {
        t.exact = e.exact = false;
      }
      stmt(i->getThen(), t);
      if (i->getElse()) stmt(i->getElse(), e);
      return;
    }
    if (const auto* f = dyn_cast<ForStmt>(s)) {
      for_stmt(f, c);
      return;
    }
    if (isa<ReturnStmt>(s)) {
      unsupported(s, "a return other than `if (cond) return;` in the kernel body");
      return;
    }
    unsupported(s, std::string("the statement '") + s->getStmtClassName() + "'");
  }

  void var_decl(const VarDecl* v, const Ctx& c) {
    QualType t = v->getType();
    std::string n = v->getNameAsString();
    if (v->hasAttr<CUDASharedAttr>()) {
      ArrayRef a{n, Space::Shared, 0};
      if (const auto* at = ctx_.getAsConstantArrayType(t))
        if (const auto* in = ctx_.getAsConstantArrayType(at->getElementType()))
          a.row = static_cast<int64_t>(in->getSize().getZExtValue());
      arrays_[v] = a;
      k_.shared_arrays.push_back(n);
      return;
    }
    const Expr* init = v->getInit();
    depth_of_[v] = c.depth;
    if (t->isPointerType() || is_fm_mem(t)) {
      if (!init) return;
      try {
        auto p = place_base(init, v->getInit());
        if (p) aliases_[v] = *p;
      } catch (const NotAffine& e) {
        unsupported(init, "pointer '" + n + "': " + e.why);
      }
      return;
    }
    if (init) expr(init, c);
    if (t->isIntegerType() && init) {
      try {
        // Visible only in its block: its value there is the polynomial (a later
        // assignment at another depth makes it opaque, see assign).
        env_[v] = poly(init);
      } catch (const NotAffine& e) {
        opaque_[v] = "'" + n + "' is " + e.why;
      }
    } else if (t->isIntegerType()) {
      opaque_[v] = "'" + n + "' has no initial value";
    }
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
        if (const auto* other = dyn_cast<VarDecl>(*d)) var_decl(other, c);
    } else if (const auto* b = dyn_cast_or_null<BinaryOperator>(f->getInit());
               b && b->getOpcode() == BO_Assign) {
      if (const auto* d = dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts()))
        var = dyn_cast<VarDecl>(d->getDecl());
      init = b->getRHS();
    }
    LoopCtx l;
    std::string why;
    try {
      if (!var || !init || !var->getType()->isIntegerType())
        throw NotAffine{"the loop has no integer counter initialised in its header"};
      if (init) expr(init, c);
      Poly a = poly(init);
      l.var = var->getNameAsString();
      const auto* cond = dyn_cast_or_null<BinaryOperator>(
          f->getCond() ? f->getCond()->IgnoreParenImpCasts() : nullptr);
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
      bool geometric = false, up = true;
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
      }
      if (step == Poly(0) && !geometric)
        throw NotAffine{"the loop increment is not `k++`, `k += s`, `k--`, `k -= s`, `k >>= 1` "
                        "or `k /= 2`"};
      BinaryOperatorKind op = cond->getOpcode();
      Poly k = Poly::var(l.var);
      if (geometric) {
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
      } else if (!up && (op == BO_GT || op == BO_GE) && step == Poly(1)) {
        Poly last = op == BO_GT ? b + 1 : b; // inclusive smallest value
        l.lower = last;
        l.count = a - last + 1;
        l.facts = {le(last, k), le(k, a)};
      } else {
        throw NotAffine{"the loop's condition and increment do not bound the counter"};
      }
    } catch (const NotAffine& n) {
      why = n.why;
    }
    if (!why.empty()) {
      // Not followed: its accesses are reported unsupported (an index using its counter
      // cannot be summarised).
      unsupported(f, "a loop the extractor cannot summarise: " + why);
      if (var) opaque_[var] = "the counter of a loop it cannot summarise";
      Ctx inner = c;
      inner.divergent = true;
      ++inner.depth;
      stmt(f->getBody(), inner);
      return;
    }
    l.barrier = has_top_barrier(f->getBody());
    env_[var] = Poly::var(l.var);
    Ctx inner = c;
    ++inner.depth;
    inner.loops.push_back(l);
    if (l.barrier) {
      if (c.divergent || c.returned) {
        unsupported(f, "a loop with __syncthreads() inside a condition or after a "
                       "thread-dependent early return (divergence)");
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
      stmt(f->getBody(), inner);
    }
    env_.erase(var);
    opaque_[var] = "'" + l.var + "' is used after its loop";
  }

  static bool has_top_barrier(const Stmt* body) {
    auto is_barrier = [](const Stmt* s) {
      const auto* call = dyn_cast<CallExpr>(s);
      return call && call->getDirectCallee() &&
             call->getDirectCallee()->getNameAsString() == "__syncthreads";
    };
    if (is_barrier(body)) return true;
    if (const auto* cs = dyn_cast<CompoundStmt>(body))
      for (const Stmt* s : cs->body())
        if (is_barrier(s)) return true;
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

ExtractResult extract(const std::string& code, const std::string& file,
                      const std::vector<std::string>& clang_args) {
  ExtractResult r;
  std::vector<std::string> args = {"-x",
                                   "cuda",
                                   "--cuda-device-only",
                                   "-nocudainc",
                                   "-nocudalib",
                                   "--cuda-gpu-arch=sm_70",
                                   "-std=c++17",
                                   "-include",
                                   kHeaderPath,
                                   "-Wno-unknown-cuda-version"};
  if (std::string rd = FUNMEM_CLANG_RESOURCE_DIR; !rd.empty()) {
    args.push_back("-resource-dir");
    args.push_back(rd);
  }
  args.insert(args.end(), clang_args.begin(), clang_args.end());
  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  IntrusiveRefCntPtr<DiagnosticOptions> diag_opts = new DiagnosticOptions();
  diag_opts->ShowColors = false;
  TextDiagnosticPrinter printer(diag_os, diag_opts.get());
  tooling::FileContentMappings files = {{kHeaderPath, cuda_min_header()},
                                        {kRtModelPath, rt_model_header()}};
  std::unique_ptr<ASTUnit> ast = tooling::buildASTFromCodeWithArgs(
      code, args, file, "funmem-extract", std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(), files, &printer);
  diag_os.flush();
  // Errors (not warnings) are the tool's.
  {
    size_t start = 0;
    while (start < diag_text.size()) {
      size_t end = diag_text.find('\n', start);
      std::string line = diag_text.substr(start, end == std::string::npos ? end : end - start);
      if (line.find(": error: ") != std::string::npos ||
          line.find(": fatal error: ") != std::string::npos)
        r.errors.push_back(line);
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  if (!ast || ast->getDiagnostics().hasErrorOccurred()) {
    if (r.errors.empty()) r.errors.push_back(file + ": error: clang could not parse the file");
    return r;
  }
  ASTContext& ctx = ast->getASTContext();
  const SourceManager& sm = ctx.getSourceManager();
  for (const Decl* d : ctx.getTranslationUnitDecl()->decls()) {
    const auto* f = dyn_cast<FunctionDecl>(d);
    if (!f || !f->hasAttr<CUDAGlobalAttr>() || !f->doesThisDeclarationHaveABody()) continue;
    if (!sm.isInMainFile(sm.getExpansionLoc(f->getLocation()))) continue;
    KernelSummary k;
    Extractor(ctx, k).run(f);
    r.kernels.push_back(std::move(k));
  }
  return r;
}

} // namespace funmem::frontend
