// The dynamic race detector (see race_run.h): instrumentation with Clang's Rewriter, a
// generated harness, compilation with the host compiler, runs and their reports.
#include "frontend/dynamic/race_run.h"

#include "frontend/cuda/parse.h"
#include "frontend/model/gpuverify_header.h"
#include "support/files.h"
#include "support/process.h"

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
#include <optional>
#include <sstream>

namespace funmem::frontend {

namespace {

using namespace clang;
using clang::Decl;
using clang::Expr;
using clang::Stmt;
namespace fs = std::filesystem;

/// A type as C++ source names it.
std::string type_text(QualType t, const ASTContext& ctx);

/// Wraps every load and store of memory; registers static-storage variables.
class Instrumenter : public RecursiveASTVisitor<Instrumenter> {
public:
  Instrumenter(ASTContext& ctx, Rewriter& rw) : ctx_(&ctx), sm_(ctx.getSourceManager()), rw_(rw) {}
  bool shouldTraversePostOrder() const { return true; }

  std::vector<std::string> errors;
  std::vector<const VarDecl*> statics; // file-scope variables to register

  // `__builtin_choose_expr` and `_Generic`: see select_only.
  bool TraverseChooseExpr(ChooseExpr* e) {
    return select_only(e, e->getChosenSubExpr(), e->getRParenLoc());
  }
  bool TraverseGenericSelectionExpr(GenericSelectionExpr* e) {
    if (e->isResultDependent()) return true;
    return select_only(e, e->getResultExpr(), e->getRParenLoc());
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
    const CXXConstructorDecl* d = c->getConstructor();
    if (d->isTrivial() && (d->isCopyConstructor() || d->isMoveConstructor()) &&
        c->getNumArgs() >= 1)
      wrap(c->getArg(0), "rd");
    return true;
  }
  bool VisitCallExpr(CallExpr* c) {
    const FunctionDecl* f = c->getDirectCallee();
    if (!f) return true;
    std::string n = f->getNameAsString();
    const char* to = n == "memcpy" || n == "__builtin_memcpy"   ? "::fmr::copy"
                     : n == "memset" || n == "__builtin_memset" ? "::fmr::set"
                                                                : nullptr;
    if (!to) return true;
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
        rw_.ReplaceText(SourceRange(s->getBeginLoc(), s->getEndLoc()),
                        t + "* " + n + " = ::fmr::dynamic_shared<" + t + ">(\"" + n + "\");");
        continue;
      }
      // `__shared__` is a macro: only the end (the semicolon) must be in the file.
      if (s->getEndLoc().isMacroID()) {
        error(s->getEndLoc(), "a declaration ending in a macro expansion");
        continue;
      }
      std::string n = v->getNameAsString();
      rw_.InsertTextAfterToken(s->getEndLoc(),
                               " ::fmr::reg(&" + n + ", sizeof(" + n + "), \"" + n + "\", " +
                                   (v->hasAttr<CUDASharedAttr>() ? "true" : "false") + ");");
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

  void error(SourceLocation l, const std::string& what) {
    PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(l));
    errors.push_back(std::string(p.isValid() ? p.getFilename() : "?") + ":" +
                     std::to_string(p.isValid() ? p.getLine() : 0) + ":" +
                     std::to_string(p.isValid() ? p.getColumn() : 0) +
                     ": error: cannot instrument " + what);
  }
  bool rewritable(const Stmt* s) {
    SourceRange r = s->getSourceRange();
    if (r.getBegin().isMacroID() || r.getEnd().isMacroID()) {
      error(s->getBeginLoc(), "an access inside a macro expansion");
      return false;
    }
    return sm_.isInMainFile(r.getBegin());
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
    if (!sm_.isInMainFile(whole->getBeginLoc())) return true;
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

std::string type_text(QualType t, const ASTContext& ctx) {
  PrintingPolicy pp(ctx.getLangOpts());
  pp.SuppressTagKeyword = false;
  return t.getAsString(pp);
}

/// The first function with a body of those a call through a pointer of type `t` may
/// reach (those the extractor inlines for such a call), or null.
const FunctionDecl* function_target(ASTContext& ctx, QualType t) {
  for (const FunctionDecl* fd : address_taken_functions(ctx))
    if (fd->hasBody() && reachable_through(ctx, fd->getType(), t->getPointeeType())) return fd;
  return nullptr;
}

/// A buffer's element type for a pointer of type `t` (bytes for `void*`), or null where
/// none can be allocated (pointers to pointers, incomplete and function types).
std::optional<QualType> element_type(ASTContext& ctx, QualType t) {
  QualType e = t->getPointeeType().getUnqualifiedType();
  if (e->isVoidType()) return ctx.UnsignedCharTy;
  if (e->isPointerType() || e->isIncompleteType() || e->isFunctionType() || e->isReferenceType())
    return std::nullopt;
  return e;
}

/// Writes the code that gives a kernel's arguments their values in a run, each place
/// named as the extractor names it (`n`, `q.out`, `q.in.p[1]`, `q.B::p`): a pointer a
/// buffer of its own (`--size PATH=COUNT`), a function pointer the first function a call
/// through it may reach, an integer `--arg PATH=V` (a parameter: the number of threads
/// in x where not given; a member: where given), a floating-point parameter 1. Constant
/// members are filled as the others; of a union's members only the first is (the others
/// share its bytes). A place it cannot fill (a reference, a pointer to pointers) makes
/// `error` say why: the kernel is then reported and not run.
class Filler {
public:
  Filler(ASTContext& ctx, std::ostringstream& o) : ctx_(ctx), o_(o) {}
  std::string error;
  std::vector<std::string> scalars, buffers; // the names --arg and --size accept
  std::vector<ScalarRange> ranges;           // the scalars' values

  void parameter(QualType t, const std::string& lhs, const std::string& path) {
    t = t.getUnqualifiedType();
    if (t->isReferenceType())
      fail("cannot pass the reference argument '" + path + "'");
    else if (t->isRealFloatingType())
      put(lhs, "1");
    else if (t->isIntegerType() || t->isEnumeralType()) {
      scalar(t, path, 0);
      put(lhs, "j.scalar(\"" + path + "\")");
    } else
      place(t, lhs, path, nullptr, 0);
  }

private:
  ASTContext& ctx_;
  std::ostringstream& o_;

  void fail(const std::string& why) {
    if (error.empty()) error = why;
  }
  /// Records an integer place (`bits`: a bit-field's width, else 0) and its values.
  void scalar(QualType t, const std::string& path, unsigned bits) {
    scalars.push_back(path);
    ScalarRange r;
    r.path = path;
    r.type = type_text(t.getUnqualifiedType(), ctx_) + (bits ? " : " + std::to_string(bits) : "");
    bool is_signed = t->isSignedIntegerOrEnumerationType();
    unsigned width = bits ? bits : static_cast<unsigned>(ctx_.getIntWidth(t));
    if (const auto* et = t->getAs<EnumType>(); et && !bits && !et->getDecl()->isFixed()) {
      // The values of the enumeration: those of the smallest bit-field holding every
      // enumerator (C++ [dcl.enum]).
      const EnumDecl* d = et->getDecl();
      const unsigned neg = d->getNumNegativeBits(), pos = d->getNumPositiveBits();
      is_signed = neg > 0;
      width = is_signed ? std::max(pos + 1, neg) : std::max(pos, 1u);
    }
    if (t->isBooleanType()) {
      r.lo = 0;
      r.hi = 1;
    } else if (is_signed) {
      r.lo = width >= 64 ? INT64_MIN : -(int64_t{1} << (width - 1));
      r.hi = width >= 64 ? INT64_MAX : (int64_t{1} << (width - 1)) - 1;
    } else {
      r.lo = 0;
      r.hi = width >= 63 ? INT64_MAX : (int64_t{1} << width) - 1;
    }
    ranges.push_back(r);
  }
  /// `lhs = value`, through its bytes (a constant member too).
  void put(const std::string& lhs, const std::string& value) {
    o_ << "  ::fmr::put(&(" << lhs << "), " << value << ");\n";
  }
  void place(QualType t, const std::string& lhs, const std::string& path, const RecordDecl* whole,
             int depth) {
    if (depth > 8) return;
    if (t->isReferenceType()) {
      fail("the member '" + path + "' is a reference: the harness cannot make the structure");
      return;
    }
    if (const auto* at = ctx_.getAsConstantArrayType(t)) {
      const uint64_t n = std::min<uint64_t>(at->getSize().getZExtValue(), 64);
      for (uint64_t i = 0; i < n; ++i)
        place(at->getElementType(), lhs + "[" + std::to_string(i) + "]",
              path + "[" + std::to_string(i) + "]", whole, depth + 1);
      return;
    }
    if (t->isPointerType() && t->getPointeeType()->isFunctionType()) {
      if (const FunctionDecl* target = function_target(ctx_, t))
        put(lhs, "&" + target->getQualifiedNameAsString());
      else
        fail("no function of the file for '" + path + "' of type '" + type_text(t, ctx_) + "'");
      return;
    }
    if (t->isPointerType()) {
      auto e = element_type(ctx_, t);
      if (!e) {
        fail("cannot allocate '" + path + "' of type '" + type_text(t, ctx_) + "'");
        return;
      }
      buffers.push_back(path);
      put(lhs,
          "::fmr::buffer<" + type_text(*e, ctx_) + ">(\"" + path + "\", j.size(\"" + path + "\"))");
      return;
    }
    if (t->isIntegerType() || t->isEnumeralType()) {
      scalar(t, path, 0);
      o_ << "  if (j.given(\"" << path << "\")) ::fmr::put(&(" << lhs << "), j.scalar(\"" << path
         << "\"));\n";
      return;
    }
    const auto* rd = t->getAsRecordDecl();
    if (!rd || !rd->getDefinition()) return;
    rd = rd->getDefinition();
    const RecordDecl* named = whole ? whole : rd; // members are named from it
    if (const auto* c = dyn_cast<CXXRecordDecl>(rd))
      for (const CXXBaseSpecifier& b : c->bases())
        if (!b.isVirtual())
          place(b.getType(),
                "static_cast<" + type_text(b.getType().getUnqualifiedType(), ctx_) + "&>(" + lhs +
                    ")",
                path, named, depth + 1);
    for (const FieldDecl* f : rd->fields()) {
      if (f->isUnnamedBitfield()) continue;
      if (f->isBitField()) {
        // No address: assigned where given and not constant.
        if (f->getType().isConstQualified()) continue;
        std::string at = path + "." + member_name(named, f);
        scalar(f->getType(), at, f->getBitWidthValue(ctx_));
        o_ << "  if (j.given(\"" << at << "\")) " << lhs << "." << f->getNameAsString()
           << " = j.scalar(\"" << at << "\");\n";
      } else if (f->isAnonymousStructOrUnion()) {
        // Its members are named as the parent's.
        place(f->getType(), lhs, path, named, depth + 1);
      } else {
        place(f->getType(), lhs + "." + f->getNameAsString(), path + "." + member_name(named, f),
              f->getType()->isRecordType() ? nullptr : named, depth + 1);
      }
      if (rd->isUnion()) break; // the others share the first one's bytes
    }
  }
};

/// Definitions of the functions the file declares and uses without a body (compiled
/// elsewhere): each returns a value-initialised result and touches no memory, what
/// funmem-extract assumes of them (its race-free verdicts say so).
std::string bodyless_definitions(ASTContext& ctx) {
  const SourceManager& sm = ctx.getSourceManager();
  std::ostringstream o;
  std::function<void(const DeclContext*)> scan = [&](const DeclContext* dc) {
    for (const Decl* d : dc->decls()) {
      if (const auto* ns = dyn_cast<NamespaceDecl>(d); ns && !ns->isAnonymousNamespace()) scan(ns);
      if (const auto* ls = dyn_cast<LinkageSpecDecl>(d)) scan(ls);
      const auto* f = dyn_cast<FunctionDecl>(d);
      if (!f || isa<CXXMethodDecl>(f) || f->isDefined() || !f->isUsed() || f->getBuiltinID() ||
          f->isTemplated() || f->getPreviousDecl() ||
          !sm.isInMainFile(sm.getExpansionLoc(f->getLocation())))
        continue;
      const auto* type = f->getType()->getAs<FunctionProtoType>();
      if (!type || f->getReturnType()->isReferenceType()) continue;
      o << "auto " << f->getQualifiedNameAsString() << "(";
      for (unsigned i = 0; i < f->getNumParams(); ++i)
        o << (i ? ", " : "") << type_text(f->getParamDecl(i)->getType(), ctx);
      if (f->isVariadic()) o << (f->getNumParams() ? ", ..." : "...");
      o << ")" << (type->isNothrow() ? " noexcept" : "") << " -> "
        << type_text(f->getReturnType(), ctx) << " { return"
        << (f->getReturnType()->isVoidType() ? "" : " {}") << "; }\n";
    }
  };
  scan(ctx.getTranslationUnitDecl());
  return o.str();
}

/// `text` as a C string literal.
std::string c_string(const std::string& text) {
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch == '\n' ? ' ' : ch;
  }
  return out + "\"";
}

/// The harness: per kernel, a structure of its arguments, a body that calls it, and a
/// run that allocates pointer arguments, launches, and reports.
std::string harness(ASTContext& ctx, const std::vector<const FunctionDecl*>& kernels,
                    const std::vector<const VarDecl*>& statics, std::vector<std::string>& names,
                    std::vector<ScalarRange>& ranges) {
  std::ostringstream o;
  o << "\n// ---- funmem-race-run harness ----\n";
  o << bodyless_definitions(ctx);
  o << "static void fmr_register_statics() {\n";
  for (const VarDecl* v : statics) {
    std::string n = v->getNameAsString();
    o << "  ::fmr::reg(&" << n << ", sizeof(" << n << "), \"" << n << "\", "
      << (v->hasAttr<CUDASharedAttr>() ? "true" : "false") << ");\n";
  }
  o << "}\n";
  // Each job starts from the __device__ and __constant__ variables' initial values (a
  // kernel may have written them); with zero-filled buffers they are zero-filled too,
  // as the host may change them (cudaMemcpyToSymbol) whatever they start with.
  o << "static std::vector<std::vector<unsigned char>> fmr_initial;\n"
       "static void fmr_reset_statics(bool zero) {\n"
       "  const bool first = fmr_initial.empty();\n"
       "  size_t k = 0;\n"
       "  auto one = [&](void* p, size_t n) {\n"
       "    auto* b = static_cast<unsigned char*>(p);\n"
       "    if (first) fmr_initial.emplace_back(b, b + n);\n"
       "    else std::memcpy(p, fmr_initial[k].data(), n);\n"
       "    if (zero) std::memset(p, 0, n);\n"
       "    ++k;\n"
       "  };\n";
  for (const VarDecl* v : statics)
    if ((v->hasAttr<CUDADeviceAttr>() || v->hasAttr<CUDAConstantAttr>()) &&
        !v->hasAttr<CUDASharedAttr>() && !v->getType().isConstQualified())
      o << "  one((void*)&" << v->getNameAsString() << ", sizeof(" << v->getNameAsString()
        << "));\n";
  o << "  (void)one;\n}\n";
  for (size_t ki = 0; ki < kernels.size(); ++ki) {
    const FunctionDecl* k = kernels[ki];
    // An identifier of our own (a template's instantiations share a name), the call
    // as written (namespaces, template arguments).
    std::string n = k->getNameAsString() + "_" + std::to_string(ki);
    std::string callee = kernel_name(k, true);
    // The arguments as bytes (constructed by nothing, filled member by member).
    std::ostringstream fill;
    Filler filler(ctx, fill);
    // Each parameter's type by an alias (`int (*)[4]`, `void (*)(int)` are no
    // declarators to write `T*` or `T x` after).
    std::vector<std::string> types;
    std::ostringstream aliases;
    for (const ParmVarDecl* p : k->parameters()) {
      const std::string t = "fmr_t_" + n + "_" + std::to_string(p->getFunctionScopeIndex());
      if (!p->getType()->isReferenceType())
        aliases << "using " << t << " = " << type_text(p->getType().getUnqualifiedType(), ctx)
                << ";\n";
      types.push_back(t);
      filler.parameter(p->getType(),
                       "(*reinterpret_cast<" + t + "*>(a.p_" +
                           std::to_string(p->getFunctionScopeIndex()) + "))",
                       p->getNameAsString());
    }
    names.insert(names.end(), filler.scalars.begin(), filler.scalars.end());
    for (ScalarRange& r : filler.ranges) {
      r.kernel = kernel_name(k);
      ranges.push_back(r);
    }
    for (const std::string& b : filler.buffers)
      names.push_back("@" + b);
    if (!filler.error.empty()) {
      // Reported as the kernel's run, which does not start; the other kernels run.
      o << "static void fmr_run_" << n << "(const ::fmr::Job&) {\n  ::fmr::events.clear();\n"
        << "  ::fmr::fail(" << c_string("the kernel is not run: " + filler.error) << ");\n}\n";
      continue;
    }
    o << aliases.str() << "struct fmr_args_" << n << " {\n";
    for (size_t i = 0; i < types.size(); ++i)
      o << "  alignas(" << types[i] << ") unsigned char p_" << i << "[sizeof(" << types[i]
        << ")];\n";
    o << "};\nstatic void fmr_body_" << n << "(void* v) {\n  auto& a = *static_cast<fmr_args_" << n
      << "*>(v);\n  " << callee << "(";
    for (size_t i = 0; i < types.size(); ++i)
      o << (i ? ", " : "") << "*reinterpret_cast<" << types[i] << "*>(a.p_" << i << ")";
    o << ");\n}\n";
    o << "static void fmr_run_" << n << "(const ::fmr::Job& j) {\n  fmr_args_" << n
      << " a{};\n  ::fmr::zero_fill = j.zero_fill();\n"
      << fill.str();
    o << "  ::fmr::launch(j.grid, j.block, fmr_body_" << n << ", &a);\n}\n";
  }
  o << "int main(int argc, char** argv) {\n"
       "  ::fmr::Job j;\n"
       "  while (::fmr::read_job(j, argc, argv)) {\n"
       "    ::fmr::reset();\n"
       "    fmr_register_statics();\n"
       "    fmr_reset_statics(j.zero_fill());\n";
  for (size_t ki = 0; ki < kernels.size(); ++ki) {
    const FunctionDecl* k = kernels[ki];
    std::string n = k->getNameAsString() + "_" + std::to_string(ki), shown = kernel_name(k);
    o << "    if (j.from() <= " << ki << ") {\n      ::fmr::begin(\"" << shown
      << "\");\n      fmr_run_" << n << "(j);\n      ::fmr::report();\n"
      << "      ::fmr::end(\"" << shown << "\");\n    }\n";
  }
  o << "  }\n  return 0;\n}\n";
  return o.str();
}

} // namespace

Instrumented instrument(const std::string& code, const std::string& file,
                        const std::vector<std::string>& clang_args) {
  Instrumented out;
  std::unique_ptr<ASTUnit> ast = parse_device_code(code, file, clang_args, out.errors);
  if (!ast || ast->getDiagnostics().hasErrorOccurred()) return out;
  ASTContext& ctx = ast->getASTContext();
  SourceManager& sm = ctx.getSourceManager();
  Rewriter rw(sm, ctx.getLangOpts());
  Instrumenter ins(ctx, rw);
  for (Decl* d : ctx.getTranslationUnitDecl()->decls())
    if (sm.isInMainFile(sm.getExpansionLoc(d->getLocation()))) ins.TraverseDecl(d);
  std::vector<const FunctionDecl*> kernels = main_file_kernels(ctx);
  for (const FunctionDecl* k : kernels)
    out.kernels.push_back(kernel_name(k));
  out.errors.insert(out.errors.end(), ins.errors.begin(), ins.errors.end());
  const RewriteBuffer* buf = rw.getRewriteBufferFor(sm.getMainFileID());
  out.source = buf ? std::string(buf->begin(), buf->end()) : code;
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
  fs::path src = fs::path(work_dir) / "instrumented.cpp";
  write(src, "#line 1 \"" + file + "\"\n" + ins.source);
  binary_ = (fs::path(work_dir) / "detector").string();
  // The macros of the file's GPUVerify header are still in the instrumented source.
  std::string defines;
  for (const std::string& a : read_gpuverify_header(code).clang_args)
    defines += " '" + a + "'";
  std::string cmd = "g++ -std=c++20 -O1 -w -pthread" + defines + " -I'" +
                    (fs::path(work_dir) / "include").string() + "' -include '" +
                    (fs::path(work_dir) / "funmem_race_rt.h").string() + "' -x c++ '" +
                    src.string() + "' -o '" + binary_ + "' 2>&1";
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
