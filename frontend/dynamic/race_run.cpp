// The dynamic race detector (see race_run.h): instrumentation with Clang's Rewriter, a
// generated harness, compilation with the host compiler, runs and their reports.
#include "frontend/dynamic/race_run.h"

#include "frontend/cuda/parse.h"
#include "frontend/dynamic/harness.h"
#include "frontend/dynamic/preprocess.h"
#include "frontend/dynamic/unseen.h"
#include "frontend/model/gpuverify_header.h"
#include "support/files.h"
#include "support/process.h"

#include <clang/Basic/Builtins.h>
#include <clang/Lex/Lexer.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

namespace funmem::frontend {

namespace {

using namespace clang;
using clang::Decl;
using clang::Expr;
using clang::Stmt;
using detail::harness;
using detail::host_args;
using detail::host_overload;
using detail::host_preprocessing;
using detail::HostArgs;
using detail::refusal;
using detail::type_text;
using detail::unseen_access;
namespace fs = std::filesystem;

/// An edit of the file's text: the offsets of an expression's first and last token, and
/// what is made of it.
using Edit = std::tuple<unsigned, unsigned, std::string>;

/// Wraps every load and store of memory; registers static-storage variables.
class Instrumenter : public RecursiveASTVisitor<Instrumenter> {
public:
  Instrumenter(ASTContext& ctx, Rewriter& rw) : ctx_(&ctx), sm_(ctx.getSourceManager()), rw_(rw) {}
  bool shouldTraversePostOrder() const { return true; }

  std::vector<std::string> errors;
  std::vector<const VarDecl*> statics; // file-scope variables to register
  /// What is wrapped or replaced, by source range and kind; with `dry`, only recorded
  /// (the text is left as it is): TemplateBodies compares a template's
  /// instantiations so.
  std::set<Edit> edits;
  bool dry = false;
  /// The body of an instantiation traversed in place of its template's (TemplateBodies).
  const std::map<const Stmt*, Stmt*>* instead = nullptr;

  bool TraverseCompoundStmt(CompoundStmt* s) {
    if (instead)
      if (auto it = instead->find(s); it != instead->end() && swapped_.insert(s).second) {
        bool ok = TraverseStmt(it->second);
        swapped_.erase(s);
        return ok;
      }
    return RecursiveASTVisitor::TraverseCompoundStmt(s);
  }

  // `__builtin_choose_expr` and `_Generic`: see select_only.
  // A selection that depends on a template parameter may select another branch in each
  // instantiation, while the text is rewritten once: refused.
  bool TraverseChooseExpr(ChooseExpr* e) {
    if (e->isConditionDependent()) {
      error(e->getBeginLoc(), "a '__builtin_choose_expr' whose condition depends on a template "
                              "parameter");
      return true;
    }
    return select_only(e, e->getChosenSubExpr(), e->getRParenLoc());
  }
  bool TraverseGenericSelectionExpr(GenericSelectionExpr* e) {
    if (e->isResultDependent()) {
      error(e->getBeginLoc(), "a '_Generic' whose selection depends on a template parameter");
      return true;
    }
    return select_only(e, e->getResultExpr(), e->getRParenLoc());
  }

  // What the host build lays out or spells otherwise than the device: refused.
  bool VisitExpr(Expr* e) {
    if (long_double(e->getType()))
      error(e->getBeginLoc(), "a 'long double' (8 bytes in device code)");
    return true;
  }
  bool VisitUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr* e) {
    if (e->isArgumentType() && long_double(e->getArgumentType()))
      error(e->getBeginLoc(), "a 'long double' (8 bytes in device code)");
    return true;
  }
  bool VisitPredefinedExpr(PredefinedExpr* e) {
    if (e->getIdentKind() != PredefinedExpr::Func && e->getIdentKind() != PredefinedExpr::Function)
      error(e->getBeginLoc(), "'" + PredefinedExpr::getIdentKindName(e->getIdentKind()).str() +
                                  "' (the host build spells it otherwise)");
    return true;
  }

  // The runtime's standard headers are the detector build's, not the file's: a
  // using-directive would bring their overloads into the file's name lookup.
  bool VisitUsingDirectiveDecl(UsingDirectiveDecl* u) {
    const NamespaceDecl* n = u->getNominatedNamespace();
    if (n && n->isStdNamespace())
      error(u->getBeginLoc(), "a using-directive for namespace std (the detector's build "
                              "includes more of the C++ library than the file)");
    return true;
  }
  bool VisitAtomicExpr(AtomicExpr* e) { // `__atomic_store_n`, `__c11_atomic_load`, ...
    error(e->getBeginLoc(), "an atomic builtin, whose accesses it does not see");
    return true;
  }
  bool VisitBuiltinBitCastExpr(BuiltinBitCastExpr* e) {
    wrap(e->getSubExpr(), "rd");
    return true;
  }
  bool VisitImplicitCastExpr(ImplicitCastExpr* e) {
    if (e->getCastKind() == CK_LValueToRValue) wrap(e->getSubExpr(), "rd");
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator* b) {
    if (b->isAssignmentOp()) wrap(b->getLHS(), b->isCompoundAssignmentOp() ? "rw" : "wr");
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator* u) {
    if (u->isIncrementDecrementOp()) wrap(u->getSubExpr(), "rw");
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr* c) {
    const auto* m = dyn_cast_or_null<CXXMethodDecl>(c->getDirectCallee());
    if (m && m->isTrivial() && (m->isCopyAssignmentOperator() || m->isMoveAssignmentOperator()) &&
        c->getNumArgs() == 2) {
      wrap(c->getArg(0), "wr");
      wrap(c->getArg(1), "rd");
    }
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr* c) {
    checked_call(c, !c->isListInitialization() && !c->isStdInitListInitialization());
    const CXXConstructorDecl* d = c->getConstructor();
    if (d->isTrivial() && (d->isCopyConstructor() || d->isMoveConstructor()) &&
        c->getNumArgs() >= 1)
      wrap(c->getArg(0), "rd");
    return true;
  }
  bool VisitCallExpr(CallExpr* c) {
    // The operators whose operands C++17 sequences are evaluated in their order.
    const auto* op = dyn_cast<CXXOperatorCallExpr>(c);
    const OverloadedOperatorKind ok = op ? op->getOperator() : OO_None;
    checked_call(c, !(op && (op->isAssignmentOp() || ok == OO_LessLess || ok == OO_GreaterGreater ||
                             ok == OO_AmpAmp || ok == OO_PipePipe || ok == OO_Comma ||
                             ok == OO_Subscript || ok == OO_ArrowStar)));
    const FunctionDecl* f = c->getDirectCallee();
    if (!f) return true;
    std::string n = f->getNameAsString();
    const char* to = n == "memcpy" || n == "__builtin_memcpy"   ? "::fmr::copy"
                     : n == "memset" || n == "__builtin_memset" ? "::fmr::set"
                                                                : nullptr;
    if (!to) {
      // Another builtin that may read or write memory through a pointer
      // (`__builtin_memmove`, `__builtin_strlen`, `__sync_fetch_and_add`): g++ runs it
      // unseen.
      const unsigned id = f->getBuiltinID();
      if (id && !ctx_->BuiltinInfo.isConst(id))
        for (const Expr* a : c->arguments())
          if (a->getType()->isPointerType() ||
              a->IgnoreParenImpCasts()->getType()->isPointerType() ||
              a->IgnoreParenImpCasts()->getType()->isArrayType()) {
            error(c->getBeginLoc(),
                  "a call of the builtin '" + n + "', whose accesses it does not see");
            break;
          }
      return true;
    }
    const Expr* callee = c->getCallee()->IgnoreParenImpCasts();
    const Expr* named = c->getCallee();
    while (isa<ParenExpr>(named) || isa<ImplicitCastExpr>(named))
      named = isa<ParenExpr>(named) ? cast<ParenExpr>(named)->getSubExpr()
                                    : cast<ImplicitCastExpr>(named)->getSubExpr();
    if (named != callee) {
      error(c->getBeginLoc(), "a call of " + n + " that __builtin_choose_expr or _Generic selects");
      return true;
    }
    if (!rewritable(callee)) return true;
    if (note(callee, to)) return true;
    PresumedLoc p = sm_.getPresumedLoc(c->getBeginLoc());
    rw_.ReplaceText(callee->getSourceRange(), std::string(to) + "_at(" +
                                                  std::to_string(p.getLine()) + ", " +
                                                  std::to_string(p.getColumn()) + ")");
    return true;
  }
  bool VisitDeclStmt(DeclStmt* s) {
    for (const Decl* d : s->decls()) {
      const auto* v = dyn_cast<VarDecl>(d);
      if (!v || !v->hasGlobalStorage()) continue;
      if (v->hasExternalStorage()) {
        // `extern __shared__ T a[];`: the block's dynamic shared memory, one object for
        // every such array (funmem_race_rt.h).
        const ArrayType* at = v->getType()->getAsArrayTypeUnsafe();
        if (!v->hasAttr<CUDASharedAttr>() || !v->getType()->isIncompleteArrayType() || !at ||
            !s->isSingleDecl() || s->getBeginLoc().isMacroID() || s->getEndLoc().isMacroID()) {
          error(v->getLocation(),
                "an extern variable inside a function ('" + v->getNameAsString() + "')");
          continue;
        }
        std::string n = v->getNameAsString(), t = at->getElementType().getAsString();
        // Through an alias: an element type such as a function pointer's is no prefix.
        const std::string alias = "fmr_" + n + "_t";
        std::string text = "using " + alias + " = " + t + "; " + alias + "* " + n +
                           " = ::fmr::dynamic_shared<" + alias + ">(\"" + n + "\");";
        if (!note(s->getBeginLoc(), s->getEndLoc(), text))
          rw_.ReplaceText(SourceRange(s->getBeginLoc(), s->getEndLoc()), text);
        continue;
      }
      // `__shared__` is a macro: only the end (the semicolon) must be in the file.
      if (s->getEndLoc().isMacroID()) {
        error(s->getEndLoc(), "a declaration ending in a macro expansion");
        continue;
      }
      std::string n = v->getNameAsString();
      std::string text = " ::fmr::reg(&" + n + ", sizeof(" + n + "), \"" + n + "\", " +
                         (v->hasAttr<CUDASharedAttr>() ? "true" : "false") + ");";
      if (!note(s->getEndLoc(), s->getEndLoc(), text))
        rw_.InsertTextAfterToken(s->getEndLoc(), text);
    }
    return true;
  }
  bool VisitVarDecl(VarDecl* v) {
    if (v->isFileVarDecl() && sm_.isInMainFile(sm_.getExpansionLoc(v->getLocation())) &&
        !v->hasExternalStorage())
      statics.push_back(v);
    return true;
  }

  // Copies that have no source text to wrap: refused, never missed.
  bool VisitLambdaExpr(LambdaExpr* l) {
    for (const LambdaCapture& c : l->captures()) {
      if (c.capturesThis() && c.getCaptureKind() == LCK_StarThis)
        error(c.getLocation(), "the copy of *this that a lambda captures");
      if (!c.capturesVariable() || c.getCaptureKind() != LCK_ByCopy || l->isInitCapture(&c))
        continue;
      const auto* v = dyn_cast<VarDecl>(c.getCapturedVar());
      if (v && (v->hasGlobalStorage() || v->getType()->isReferenceType()))
        error(c.getLocation(), "the copy of '" + v->getNameAsString() + "' that a lambda captures");
    }
    return true;
  }
  bool VisitCXXForRangeStmt(CXXForRangeStmt* f) {
    if (memory(f->getRangeInit()))
      error(f->getRangeInit()->getBeginLoc(),
            "the loads of a range-based for over memory ('" +
                Lexer::getSourceText(
                    CharSourceRange::getTokenRange(f->getRangeInit()->getSourceRange()), sm_,
                    LangOptions())
                    .str() +
                "')");
    return true;
  }

private:
  ASTContext* ctx_;
  SourceManager& sm_;
  Rewriter& rw_;
  std::set<const Stmt*> swapped_; // pattern bodies being traversed through `instead`

  /// Whether `t` holds a `long double` (through pointers, arrays and members).
  bool long_double(QualType t, int depth = 0) {
    if (t.isNull() || depth > 8) return false;
    t = t.getCanonicalType();
    if (t->isSpecificBuiltinType(BuiltinType::LongDouble)) return true;
    if (t->isPointerType() || t->isReferenceType())
      return long_double(t->getPointeeType(), depth + 1);
    if (const auto* a = ctx_->getAsArrayType(t)) return long_double(a->getElementType(), depth + 1);
    if (const auto* c = t->getAs<ComplexType>()) return long_double(c->getElementType(), depth + 1);
    if (const RecordDecl* r = t->getAsRecordDecl(); r && r->getDefinition()) {
      for (const FieldDecl* f : r->getDefinition()->fields())
        if (long_double(f->getType(), depth + 1)) return true;
      if (const auto* c = dyn_cast<CXXRecordDecl>(r->getDefinition()))
        for (const CXXBaseSpecifier& b : c->bases())
          if (long_double(b.getType(), depth + 1)) return true;
    }
    return false;
  }
  /// Records an edit of `e`'s text; true when it is not to be made (`dry`).
  bool note(SourceLocation b, SourceLocation e, const std::string& what) {
    edits.insert({sm_.getFileOffset(sm_.getExpansionLoc(b)),
                  sm_.getFileOffset(sm_.getExpansionLoc(e)), what});
    return dry;
  }
  bool note(const Expr* e, const std::string& what) {
    return note(e->getBeginLoc(), e->getEndLoc(), what);
  }
  void error(SourceLocation l, const std::string& what) { errors.push_back(refusal(sm_, l, what)); }
  /// A call the build would run otherwise than the device, or whose accesses it does not
  /// see: refused. `unordered`: C++ leaves the order of its arguments unspecified (g++
  /// evaluates them right to left, clang left to right).
  void checked_call(const Expr* call, bool unordered) {
    if (std::optional<std::string> why = unseen_access(*ctx_, call))
      error(call->getBeginLoc(), *why);
    const auto* callee = isa<CallExpr>(call) ? cast<CallExpr>(call)->getDirectCallee() : nullptr;
    if (std::optional<std::string> why = host_overload(*ctx_, callee))
      error(call->getBeginLoc(), *why);
    if (!unordered) return;
    const auto* ce = dyn_cast<CallExpr>(call);
    const auto* cc = dyn_cast<CXXConstructExpr>(call);
    if (std::optional<std::string> why =
            ce ? unsequenced_arguments(ce->getArgs(), ce->getNumArgs())
               : unsequenced_arguments(cc->getArgs(), cc->getNumArgs()))
      error(call->getBeginLoc(),
            "arguments whose order of evaluation C++ leaves unspecified (" + *why + ")");
  }
  bool rewritable(const Stmt* s) {
    SourceRange r = s->getSourceRange();
    if (r.getBegin().isMacroID() || r.getEnd().isMacroID()) {
      error(s->getBeginLoc(), "an access inside a macro expansion");
      return false;
    }
    if (sm_.isInMainFile(r.getBegin())) return true;
    // Text included into the file's code (`#include "body.inc"` in a function): g++
    // would compile it as it is.
    error(s->getBeginLoc(), "an access in text included from another file");
    return false;
  }
  /// An lvalue that may be memory: not a local variable of the thread, not a built-in.
  bool memory(const Expr* e0) {
    const Expr* e = e0->IgnoreParens();
    if (e->getType()->isFunctionType()) return false;
    if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
      // A structured binding names a member of the variable it decomposes.
      const ValueDecl* decl = d->getDecl();
      if (const auto* b = dyn_cast<BindingDecl>(decl)) decl = b->getDecomposedDecl();
      const auto* v = dyn_cast_or_null<VarDecl>(decl);
      if (!v || builtin_variable(v->getNameAsString())) return false;
      return v->hasGlobalStorage() || v->getType()->isReferenceType();
    }
    // An lvalue cast (`(B&)a[0]`, with its implicit part: to a base) is its operand's
    // memory, seen as its type.
    if (const auto* c = dyn_cast<CastExpr>(e); c && c->isGLValue()) return memory(c->getSubExpr());
    if (const auto* m = dyn_cast<MemberExpr>(e)) {
      if (const auto* d = dyn_cast<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts()))
        if (builtin_variable(d->getDecl()->getNameAsString())) return false;
      // A member of a temporary (`In().v`) is the thread's own (and has no address to
      // take as written).
      if (!m->isArrow() && !m->getType()->isReferenceType() &&
          (m->getBase()->IgnoreParens()->isPRValue() ||
           isa<MaterializeTemporaryExpr>(m->getBase()->IgnoreParens())))
        return false;
      if (const auto* f = dyn_cast<FieldDecl>(m->getMemberDecl()); f && f->isBitField()) {
        // A bit-field of the thread's own storage is no memory; one of memory cannot be
        // instrumented (its address cannot be taken).
        if (m->isArrow() || memory(m->getBase())) error(m->getBeginLoc(), "a bit-field access");
        return false;
      }
      return true;
    }
    if (isa<ArraySubscriptExpr>(e)) return true;
    if (const auto* u = dyn_cast<UnaryOperator>(e)) return u->getOpcode() == UO_Deref;
    return false;
  }
  /// The named array a subscript indexes (`a` of `a[i]` and of `a[i][j]`), if it is a
  /// variable of static storage of a constant array type.
  const DeclRefExpr* array_of(const Expr* e) {
    const auto* s = dyn_cast<ArraySubscriptExpr>(e->IgnoreParens());
    while (s) {
      const Expr* base = s->getBase()->IgnoreParenImpCasts();
      if (const auto* d = dyn_cast<DeclRefExpr>(base)) {
        const auto* v = dyn_cast<VarDecl>(d->getDecl());
        bool named =
            v && v->hasGlobalStorage() && isa<ConstantArrayType>(v->getType()) && rewritable(d);
        return named ? d : nullptr;
      }
      s = base->getType()->isArrayType() ? dyn_cast<ArraySubscriptExpr>(base) : nullptr;
    }
    return nullptr;
  }
  /// `e` without parentheses and `__extension__`, but not through the selections that
  /// select_only rewrites (a wrap of one is a wrap of all of its new text).
  static const Expr* parens(const Expr* e) {
    for (;;) {
      if (const auto* p = dyn_cast<ParenExpr>(e))
        e = p->getSubExpr();
      else if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Extension)
        e = u->getSubExpr();
      else
        return e;
    }
  }
  /// `__builtin_choose_expr(c, a, b)` and `_Generic(x, ...)`, which g++ has in C only:
  /// replaced by the branch they select, in parentheses, instrumented (the others never
  /// run). False where it cannot be rewritten (then an error says why).
  bool select_only(const Expr* whole, Expr* chosen, SourceLocation end) {
    if (!TraverseStmt(chosen)) return false;
    if (whole->getBeginLoc().isMacroID() || end.isMacroID() || chosen->getBeginLoc().isMacroID() ||
        chosen->getEndLoc().isMacroID()) {
      error(whole->getBeginLoc(),
            std::string("a '") + (isa<ChooseExpr>(whole) ? "__builtin_choose_expr" : "_Generic") +
                "' in a macro expansion");
      return true;
    }
    if (!sm_.isInMainFile(whole->getBeginLoc()) ||
        note(whole->getBeginLoc(), end,
             "selected " + std::to_string(sm_.getFileOffset(chosen->getBeginLoc()))))
      return true;
    const std::string text = rw_.getRewrittenText(chosen->getSourceRange());
    rw_.ReplaceText(SourceRange(whole->getBeginLoc(), end), "(" + text + ")");
    return true;
  }
  void wrap(const Expr* e0, const char* fn) {
    // Parentheses and conversions that change no byte (`const`); a conversion to a base
    // class of a read: the base's bytes; `?:` and `,` lvalues: their operands.
    const Expr* e = parens(e0);
    std::string base;
    for (;;) {
      const auto* ic = dyn_cast<ImplicitCastExpr>(e);
      if (ic && ic->getCastKind() == CK_NoOp) {
        e = parens(ic->getSubExpr());
      } else if (ic && base.empty() && std::string(fn) == "rd" &&
                 (ic->getCastKind() == CK_DerivedToBase ||
                  ic->getCastKind() == CK_UncheckedDerivedToBase)) {
        base = type_text(ic->getType().getUnqualifiedType(), *ctx_);
        e = parens(ic->getSubExpr());
      } else {
        break;
      }
    }
    if (isa<ChooseExpr>(e) || isa<GenericSelectionExpr>(e)) {
      // Rewritten to its selected branch (select_only): wrapped whole, unless that is a
      // `?:` or `,` lvalue, whose operands' places are gone from the text.
      const Expr* sel = e->IgnoreParens();
      if ((isa<ConditionalOperator>(sel) && sel->isGLValue()) ||
          (isa<BinaryOperator>(sel) && cast<BinaryOperator>(sel)->getOpcode() == BO_Comma)) {
        error(e->getBeginLoc(), "a '?:' or ',' lvalue that __builtin_choose_expr or _Generic "
                                "selects");
        return;
      }
    }
    if (const auto* c = dyn_cast<ConditionalOperator>(e); c && c->isGLValue()) {
      wrap(c->getTrueExpr(), fn);
      wrap(c->getFalseExpr(), fn);
      return;
    }
    if (const auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma) {
      wrap(b->getRHS(), fn);
      return;
    }
    if (!memory(e) || !rewritable(e)) return;
    if (note(e, fn + base)) return;
    if (!base.empty()) {
      PresumedLoc p = sm_.getPresumedLoc(e->getBeginLoc());
      rw_.InsertTextBefore(e->getBeginLoc(), "(*::fmr::rd(static_cast<const " + base + "*>(&(");
      rw_.InsertTextAfterToken(e->getEndLoc(), ")), " + std::to_string(p.getLine()) + ", " +
                                                   std::to_string(p.getColumn()) + "))");
      return;
    }
    PresumedLoc p = sm_.getPresumedLoc(e->getBeginLoc());
    // An element of a named array is checked against the array's bytes: an index past
    // its end is out of bounds even where another object follows it.
    std::string within;
    if (const DeclRefExpr* a = array_of(e)) {
      std::string name = Lexer::getSourceText(CharSourceRange::getTokenRange(a->getSourceRange()),
                                              sm_, LangOptions())
                             .str();
      within = name + ", \"" + a->getDecl()->getNameAsString() + "\", ";
    }
    rw_.InsertTextBefore(e->getBeginLoc(),
                         std::string("(*::fmr::") + fn + (within.empty() ? "" : "_in") + "(&(");
    rw_.InsertTextAfterToken(e->getEndLoc(), "), " + within + std::to_string(p.getLine()) + ", " +
                                                 std::to_string(p.getColumn()) + "))");
  }
};

/// The instantiations of the file's templates that have a body: of function templates,
/// of class templates' members, of generic lambdas' call operators.
class Instantiations : public RecursiveASTVisitor<Instantiations> {
public:
  explicit Instantiations(const SourceManager& sm) : sm_(sm) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  std::vector<const FunctionDecl*> found;

  bool VisitFunctionDecl(FunctionDecl* f) {
    const FunctionDecl* pattern = f->getTemplateInstantiationPattern();
    if (f->isTemplateInstantiation() && f->doesThisDeclarationHaveABody() && pattern &&
        pattern->getBody() && sm_.isInMainFile(sm_.getExpansionLoc(pattern->getBeginLoc())))
      found.push_back(f);
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr* l) {
    if (const FunctionTemplateDecl* t = l->getDependentCallOperator())
      for (FunctionDecl* f : t->specializations())
        VisitFunctionDecl(f);
    return true;
  }

private:
  const SourceManager& sm_;
};

/// A template's text is one for all its instantiations, but its pattern's dependent
/// expressions have no conversions yet (a load is an lvalue-to-rvalue conversion): the
/// body of a template that is instantiated is instrumented from an instantiation's
/// (Instrumenter::instead), and every other instantiation must make the same edits,
/// else the template is refused (an error per instantiation that differs).
struct TemplateBodies {
  std::vector<std::pair<const FunctionDecl*, std::set<Edit>>> instances; // with their edits
  std::map<const Stmt*, Stmt*> instead; // a pattern's body -> an instantiation's

  TemplateBodies(ASTContext& ctx, Rewriter& rw) {
    SourceManager& sm = ctx.getSourceManager();
    Instantiations inst(sm);
    for (Decl* d : ctx.getTranslationUnitDecl()->decls())
      if (sm.isInMainFile(sm.getExpansionLoc(d->getLocation()))) inst.TraverseDecl(d);
    std::set<const FunctionDecl*> seen;
    for (const FunctionDecl* f : inst.found) {
      if (!seen.insert(f).second) continue;
      Instrumenter dry(ctx, rw);
      dry.dry = true;
      dry.TraverseStmt(const_cast<Stmt*>(f->getBody()));
      instances.emplace_back(f, dry.edits);
      // (An instantiation may share its pattern's body where nothing in it depends.)
      if (f->getBody() != f->getTemplateInstantiationPattern()->getBody())
        instead.emplace(f->getTemplateInstantiationPattern()->getBody(),
                        const_cast<Stmt*>(f->getBody()));
    }
  }

  /// Appends an error for each instantiation whose edits (or errors: a bit-field of
  /// memory, a macro) are not those made in its pattern's text.
  void compare(ASTContext& ctx, Rewriter& rw, const std::set<Edit>& made,
               std::vector<std::string>& errors) const {
    SourceManager& sm = ctx.getSourceManager();
    std::set<std::string> said(errors.begin(), errors.end());
    for (const auto& [f, edits] : instances) {
      Instrumenter dry(ctx, rw);
      dry.dry = true;
      dry.TraverseStmt(const_cast<Stmt*>(f->getBody()));
      for (const std::string& e : dry.errors)
        if (said.insert(e).second) errors.push_back(e);
      const Stmt* body = f->getTemplateInstantiationPattern()->getBody();
      const unsigned from = sm.getFileOffset(body->getBeginLoc()),
                     to = sm.getFileOffset(body->getEndLoc());
      std::set<Edit> want;
      for (const Edit& e : made)
        if (std::get<0>(e) >= from && std::get<1>(e) <= to) want.insert(e);
      if (edits == want) continue;
      std::vector<Edit> differ;
      std::set_symmetric_difference(want.begin(), want.end(), edits.begin(), edits.end(),
                                    std::back_inserter(differ));
      std::string name;
      llvm::raw_string_ostream os(name);
      f->getNameForDiagnostic(os, ctx.getPrintingPolicy(), true);
      os.flush();
      std::string e = refusal(
          sm, sm.getComposedLoc(sm.getMainFileID(), std::get<0>(differ.front())),
          "the template '" + f->getTemplateInstantiationPattern()->getQualifiedNameAsString() +
              "': its instantiation '" + name +
              "' loads or stores memory otherwise than another one here (the text is one for "
              "all)");
      if (said.insert(e).second) errors.push_back(e);
    }
  }
};

/// Finds the functions with a body in another file of the user's (a header, not a
/// system one nor funmem's own) that the file uses: g++ compiles that file as it is, so
/// their accesses would go unseen.
class ForeignCode : public RecursiveASTVisitor<ForeignCode> {
public:
  explicit ForeignCode(const SourceManager& sm) : sm_(sm) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  std::vector<std::string> errors;

  /// Whether `d` is declared in such a file.
  bool foreign(const Decl* d) const {
    SourceLocation l = sm_.getExpansionLoc(d->getLocation());
    if (l.isInvalid() || sm_.isInMainFile(l) || sm_.isInSystemHeader(l)) return false;
    return sm_.getFilename(l).str().rfind("/funmem-extract/", 0) != 0;
  }
  // Code that runs where the file uses it: refused unless it is a constant.
  bool VisitLambdaExpr(LambdaExpr* l) {
    say(l->getBeginLoc(), "a lambda");
    return true;
  }
  bool VisitParmVarDecl(ParmVarDecl* p) {
    if (p->hasDefaultArg() && !p->hasUninstantiatedDefaultArg() && !p->hasUnparsedDefaultArg() &&
        !p->getDefaultArg()->isEvaluatable(p->getASTContext()))
      say(p->getLocation(), "the default argument of '" + p->getNameAsString() + "'");
    return true;
  }
  bool VisitFieldDecl(FieldDecl* f) {
    if (const Expr* init = f->getInClassInitializer();
        init && !init->isValueDependent() && !init->isEvaluatable(f->getASTContext()))
      say(f->getLocation(), "the initialiser of '" + f->getNameAsString() + "'");
    return true;
  }
  void say(SourceLocation l, const std::string& what) {
    errors.push_back(refusal(sm_, l,
                             what + " outside the file that is checked (only its own code is "
                                    "instrumented)"));
  }
  bool VisitFunctionDecl(FunctionDecl* f) {
    if (f->doesThisDeclarationHaveABody() && (f->isUsed() || f->isReferenced()) && foreign(f)) {
      errors.push_back(refusal(sm_, f->getLocation(),
                               "'" + f->getQualifiedNameAsString() +
                                   "', defined outside the file that is checked (only its own "
                                   "code is instrumented)"));
    }
    return true;
  }

private:
  const SourceManager& sm_;
};

} // namespace

Instrumented instrument(const std::string& code, const std::string& file,
                        const std::vector<std::string>& clang_args) {
  Instrumented out;
  // The preprocessing record keeps the lines clang skipped and the macros it expanded.
  std::vector<std::string> args = clang_args;
  args.insert(args.end(), {"-Xclang", "-detailed-preprocessing-record"});
  std::unique_ptr<ASTUnit> ast = parse_device_code(code, file, args, out.errors);
  if (!ast || ast->getDiagnostics().hasErrorOccurred()) return out;
  ASTContext& ctx = ast->getASTContext();
  SourceManager& sm = ctx.getSourceManager();
  Rewriter rw(sm, ctx.getLangOpts());
  TemplateBodies templates(ctx, rw);
  Instrumenter ins(ctx, rw);
  ins.instead = &templates.instead;
  for (Decl* d : ctx.getTranslationUnitDecl()->decls())
    if (sm.isInMainFile(sm.getExpansionLoc(d->getLocation()))) ins.TraverseDecl(d);
  std::vector<const FunctionDecl*> kernels = main_file_kernels(ctx);
  for (const FunctionDecl* k : kernels)
    out.kernels.push_back(kernel_name(k));
  out.errors.insert(out.errors.end(), ins.errors.begin(), ins.errors.end());
  templates.compare(ctx, rw, ins.edits, out.errors);
  ForeignCode foreign(sm);
  for (Decl* d : ctx.getTranslationUnitDecl()->decls())
    if (foreign.foreign(d)) foreign.TraverseDecl(d);
  out.errors.insert(out.errors.end(), foreign.errors.begin(), foreign.errors.end());
  const HostArgs host = host_args(clang_args, out.errors);
  out.host_args = host.macros + host.paths;
  const std::string prelude =
      host_preprocessing(*ast, rw, code, file, clang_args, host.macros, out.errors);
  const RewriteBuffer* buf = rw.getRewriteBufferFor(sm.getMainFileID());
  out.source =
      prelude + "#line 1 \"" + file + "\"\n" + (buf ? std::string(buf->begin(), buf->end()) : code);
  out.source += harness(ctx, kernels, ins.statics, out.names, out.ranges);
  return out;
}

RaceDetector::RaceDetector(const std::string& code, const std::string& file,
                           const std::string& work_dir, const std::vector<std::string>& clang_args)
    : work_dir_(work_dir) {
  Instrumented ins = instrument(code, file, clang_args);
  errors_ = ins.errors;
  kernels_ = ins.kernels;
  names_ = ins.names;
  ranges_ = ins.ranges;
  if (!errors_.empty()) return;
  fs::create_directories(fs::path(work_dir) / "include");
  auto write = [](const fs::path& p, const std::string& text) {
    if (fs::exists(p) && read_file(p.string()) == text) return;
    std::ofstream(p) << text;
  };
  write(fs::path(work_dir) / "include" / "cuda.h", "#pragma once\n");
  write(fs::path(work_dir) / "include" / "cuda_runtime.h", "#pragma once\n");
  write(fs::path(work_dir) / "funmem_race_rt.h", race_runtime_header());
  // In a folder of its own: a quoted include searches the file's folder first, as clang
  // did, never the runtime's.
  fs::create_directories(fs::path(work_dir) / "src");
  fs::path src = fs::path(work_dir) / "src" / "instrumented.cpp";
  const std::string own_dir = fs::absolute(fs::path(file)).parent_path().string();
  write(src, ins.source);
  binary_ = (fs::path(work_dir) / "detector").string();
  // The macros of the file's GPUVerify header are still in the instrumented source.
  std::string defines;
  for (const std::string& a : read_gpuverify_header(code).clang_args)
    defines += " '" + a + "'";
  std::string cmd =
      detail::host_build_command(ins, defines, own_dir, work_dir, src.string(), binary_);
  auto t0 = std::chrono::steady_clock::now();
  std::string text;
  int rc = run_command(cmd, &text);
  compile_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (rc != 0) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line) && errors_.size() < 10;)
      if (line.find("error") != std::string::npos) errors_.push_back(line);
    if (errors_.empty())
      errors_.push_back(file + ": error: the instrumented program does not compile");
  }
}

std::vector<std::vector<JobResult>> RaceDetector::run(const std::vector<RaceJob>& jobs, int seconds,
                                                      uint64_t work) const {
  std::vector<std::vector<JobResult>> out(jobs.size());
  size_t next = 0;
  // The job at `next` starts at kernel `from`: after a kernel whose run stopped (a hang,
  // a fault), the job goes on with the next kernel in a new process.
  size_t from = 0;
  while (next < jobs.size()) {
    fs::path in = fs::path(work_dir_) / "jobs.txt";
    {
      std::ofstream f(in);
      for (size_t j = next; j < jobs.size(); ++j) {
        const RaceJob& job = jobs[j];
        Launch l = job.launch;
        if (j == next && from > 0) l.args["@@from"] = static_cast<int64_t>(from);
        f << job.mutant << ' ' << job.mutant2 << ' ' << l.grid[0] << ' ' << l.grid[1] << ' '
          << l.grid[2] << ' ' << l.block[0] << ' ' << l.block[1] << ' ' << l.block[2] << ' '
          << l.elements;
        for (const auto& [n, v] : l.args)
          f << ' ' << n << '=' << v;
        f << '\n';
      }
    }
    std::string output;
    int rc = run_command("'" + binary_ + "' --jobs " + std::to_string(seconds) + " " +
                             std::to_string(work) + " < '" + in.string() + "' 2>&1",
                         &output);
    std::istringstream text(output);
    JobResult cur;
    bool open = false;
    for (std::string line; std::getline(text, line) && next < jobs.size();) {
      std::vector<std::string> f;
      std::istringstream ls(line);
      for (std::string x; std::getline(ls, x, '\t');)
        f.push_back(x);
      if (f.empty()) continue;
      if (f[0] == "kernel" && f.size() >= 2) {
        cur = JobResult{};
        cur.kernel = f[1];
        open = true;
      } else if (f[0] == "race" && f.size() >= 5 && open) {
        int64_t byte = -1;
        try {
          byte = std::stoll(f[2]);
        } catch (const std::exception&) {
        }
        cur.races.push_back({f[1], byte, f[3], f[4]});
      } else if (f[0] == "error" && f.size() >= 2 && open) {
        cur.errors.push_back(f[1]);
      } else if (f[0] == "done" && open) {
        cur.finished = true;
        out[next].push_back(cur);
        open = false;
      } else if (f[0] == "job-done") {
        ++next;
        from = 0;
      }
    }
    if (next >= jobs.size()) break;
    // The job at `next` did not finish (a hang or a crash): report it and go on.
    if (!open) cur = JobResult{};
    // The run's own reason (its work budget, a fault), or the guard that stopped it.
    bool said = std::any_of(cur.errors.begin(), cur.errors.end(),
                            [](const std::string& e) { return e.rfind("the run ", 0) == 0; });
    if (!said)
      cur.errors.push_back(
          rc == 128 + SIGPROF ? "the run used its " + std::to_string(seconds) +
                                    " s of CPU time (a loop that touches no memory?)"
          : rc == 128 + SIGALRM
              ? "the run waited " + std::to_string(seconds * 10) + " s (threads that wait forever?)"
              : "the run did not finish (exit status " + std::to_string(rc) + ")");
    out[next].push_back(cur);
    from = out[next].size();
    if (from >= kernels_.size()) {
      ++next;
      from = 0;
    }
  }
  return out;
}

} // namespace funmem::frontend
