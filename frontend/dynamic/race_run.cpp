// The dynamic race detector (see race_run.h): instrumentation with Clang's Rewriter, a
// generated harness, compilation with the host compiler, runs and their reports.
#include "frontend/dynamic/race_run.h"

#include "frontend/cuda/parse.h"
#include "frontend/model/gpuverify_header.h"
#include "support/files.h"
#include "support/process.h"

#include <clang/Rewrite/Core/Rewriter.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace funmem::frontend {

namespace {

using namespace clang;
using clang::Decl;
using clang::Expr;
using clang::Stmt;
namespace fs = std::filesystem;

/// Wraps every load and store of memory; registers static-storage variables.
class Instrumenter : public RecursiveASTVisitor<Instrumenter> {
public:
  Instrumenter(ASTContext& ctx, Rewriter& rw) : sm_(ctx.getSourceManager()), rw_(rw) {}
  bool shouldTraversePostOrder() const { return true; }

  std::vector<std::string> errors;
  std::vector<const VarDecl*> statics; // file-scope variables to register

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

private:
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
      const auto* v = dyn_cast<VarDecl>(d->getDecl());
      if (!v || builtin_variable(v->getNameAsString())) return false;
      return v->hasGlobalStorage() || v->getType()->isReferenceType();
    }
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
  void wrap(const Expr* e, const char* fn) {
    if (!memory(e) || !rewritable(e)) return;
    PresumedLoc p = sm_.getPresumedLoc(e->getBeginLoc());
    rw_.InsertTextBefore(e->getBeginLoc(), std::string("(*::fmr::") + fn + "(&(");
    rw_.InsertTextAfterToken(e->getEndLoc(), "), " + std::to_string(p.getLine()) + ", " +
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
    if (fd->hasBody() && ctx.hasSameType(fd->getType(), t->getPointeeType())) return fd;
  return nullptr;
}

/// A buffer's element type for a pointer of type `t`, or null where none can be
/// allocated (`void`, pointers, incomplete and function types).
std::optional<QualType> element_type(QualType t) {
  QualType e = t->getPointeeType().getUnqualifiedType();
  if (e->isVoidType() || e->isPointerType() || e->isIncompleteType() || e->isFunctionType())
    return std::nullopt;
  return e;
}

/// Fills the members of a structure argument `lhs` of type `t`, named `path` as the
/// extractor names the paths inside structure parameters (`q.a`, `q.in.p[1]`): each
/// pointer a buffer of its own (`--size PATH=COUNT`), a function pointer the function a
/// call through it reaches, an integer `--arg PATH=V` where given (0 otherwise, the
/// structure being value-initialised). Pointers in a union (the extractor's
/// `unsupported`), constant members and pointers to what cannot be allocated stay
/// null: a use is an out-of-bounds error of the run, never a silent one.
void fill_members(std::ostringstream& o, ASTContext& ctx, QualType t, const std::string& lhs,
                  const std::string& path, bool in_union, int depth) {
  if (t.isConstQualified() || depth > 8) return;
  if (const auto* at = ctx.getAsConstantArrayType(t)) {
    const uint64_t n = std::min<uint64_t>(at->getSize().getZExtValue(), 64);
    for (uint64_t i = 0; i < n; ++i)
      fill_members(o, ctx, at->getElementType(), lhs + "[" + std::to_string(i) + "]",
                   path + "[" + std::to_string(i) + "]", in_union, depth + 1);
    return;
  }
  if (t->isPointerType() && t->getPointeeType()->isFunctionType()) {
    if (const FunctionDecl* target = function_target(ctx, t); target && !in_union)
      o << "  " << lhs << " = &" << target->getNameAsString() << ";\n";
    return;
  }
  if (t->isPointerType()) {
    if (auto e = element_type(t); e && !in_union)
      o << "  " << lhs << " = ::fmr::buffer<" << type_text(*e, ctx) << ">(\"" << path
        << "\", j.size(\"" << path << "\"));\n";
    return;
  }
  if (t->isIntegerType() || t->isEnumeralType()) {
    if (!in_union)
      o << "  if (j.given(\"" << path << "\")) " << lhs << " = static_cast<"
        << type_text(t.getUnqualifiedType(), ctx) << ">(j.scalar(\"" << path << "\"));\n";
    return;
  }
  const auto* rd = t->getAsCXXRecordDecl();
  if (!rd || !rd->hasDefinition()) return;
  rd = rd->getDefinition();
  for (const CXXBaseSpecifier& b : rd->bases())
    if (!b.isVirtual())
      fill_members(o, ctx, b.getType(),
                   "static_cast<" + type_text(b.getType().getUnqualifiedType(), ctx) + "&>(" + lhs +
                       ")",
                   path, in_union, depth + 1);
  for (const FieldDecl* f : rd->fields()) {
    if (f->isUnnamedBitfield()) continue;
    // The members of an anonymous structure or union are named as the parent's.
    const bool anonymous = f->isAnonymousStructOrUnion();
    fill_members(o, ctx, f->getType(), anonymous ? lhs : lhs + "." + f->getNameAsString(),
                 anonymous ? path : path + "." + f->getNameAsString(), in_union || rd->isUnion(),
                 depth + 1);
  }
}

/// The harness: per kernel, a structure of its arguments, a body that calls it, and a
/// run that allocates pointer arguments, launches, and reports.
std::string harness(ASTContext& ctx, const std::vector<const FunctionDecl*>& kernels,
                    const std::vector<const VarDecl*>& statics, std::vector<std::string>& errors) {
  std::ostringstream o;
  o << "\n// ---- funmem-race-run harness ----\n";
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
    o << "struct fmr_args_" << n << " {\n";
    for (const ParmVarDecl* p : k->parameters())
      o << "  " << type_text(p->getType().getUnqualifiedType(), ctx) << " p_"
        << p->getFunctionScopeIndex() << ";\n";
    o << "};\nstatic void fmr_body_" << n << "(void* a) {\n  auto* x = static_cast<fmr_args_" << n
      << "*>(a);\n  " << callee << "(";
    for (const ParmVarDecl* p : k->parameters())
      o << (p->getFunctionScopeIndex() ? ", " : "") << "x->p_" << p->getFunctionScopeIndex();
    o << ");\n}\n";
    o << "static void fmr_run_" << n << "(const ::fmr::Job& j) {\n  fmr_args_" << n
      << " a{};\n  ::fmr::zero_fill = j.zero_fill();\n";
    for (const ParmVarDecl* p : k->parameters()) {
      QualType t = p->getType();
      std::string field = "a.p_" + std::to_string(p->getFunctionScopeIndex());
      std::string pn = p->getNameAsString();
      if (t->isPointerType() && t->getPointeeType()->isFunctionType()) {
        const FunctionDecl* target = function_target(ctx, t);
        if (!target) {
          errors.push_back(n + ": error: no function of the file for the argument '" + pn +
                           "' of type '" + type_text(t, ctx) + "'");
          continue;
        }
        o << "  " << field << " = &" << target->getNameAsString() << ";\n";
      } else if (t->isPointerType()) {
        auto e = element_type(t);
        if (!e) {
          errors.push_back(n + ": error: cannot allocate the argument '" + pn + "' of type '" +
                           type_text(t, ctx) + "'");
          continue;
        }
        o << "  " << field << " = ::fmr::buffer<" << type_text(*e, ctx) << ">(\"" << pn
          << "\", j.size(\"" << pn << "\"));\n";
      } else if (t->isIntegerType() || t->isEnumeralType()) {
        o << "  " << field << " = static_cast<" << type_text(t.getUnqualifiedType(), ctx)
          << ">(j.scalar(\"" << pn << "\"));\n";
      } else if (t->isRealFloatingType()) {
        o << "  " << field << " = 1;\n";
      } else if (t->isReferenceType()) {
        errors.push_back(n + ": error: cannot pass the reference argument '" + pn + "'");
      } else if (t->isRecordType()) {
        fill_members(o, ctx, t, field, pn, false, 0);
      }
    }
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
    o << "    ::fmr::begin(\"" << shown << "\");\n    fmr_run_" << n
      << "(j);\n    ::fmr::report();\n"
      << "    ::fmr::end(\"" << shown << "\");\n";
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
  out.source += harness(ctx, kernels, ins.statics, out.errors);
  return out;
}

RaceDetector::RaceDetector(const std::string& code, const std::string& file,
                           const std::string& work_dir, const std::vector<std::string>& clang_args)
    : work_dir_(work_dir) {
  Instrumented ins = instrument(code, file, clang_args);
  errors_ = ins.errors;
  kernels_ = ins.kernels;
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
  while (next < jobs.size()) {
    fs::path in = fs::path(work_dir_) / "jobs.txt";
    {
      std::ofstream f(in);
      for (size_t j = next; j < jobs.size(); ++j) {
        const RaceJob& job = jobs[j];
        const Launch& l = job.launch;
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
      }
    }
    if (next >= jobs.size()) break;
    // The job at `next` did not finish (a hang or a crash): report it and go on.
    if (!open) cur = JobResult{};
    cur.errors.push_back(rc == 128 + SIGPROF ? "the run used its " + std::to_string(seconds) +
                                                   " s of CPU time (a loop that touches no memory?)"
                         : rc == 128 + SIGALRM
                             ? "the run waited " + std::to_string(seconds * 10) +
                                   " s (threads that wait forever?)"
                             : "the run did not finish (exit status " + std::to_string(rc) + ")");
    out[next].push_back(cur);
    ++next;
  }
  return out;
}

} // namespace funmem::frontend
