// Parsing CUDA device code with Clang (parse.h).
#include "frontend/cuda/parse.h"
#include "frontend/extract.h"
#include "frontend/model/gpuverify_header.h"

#include <clang/Basic/Builtins.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/raw_ostream.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#ifndef FUNMEM_CLANG_RESOURCE_DIR
#define FUNMEM_CLANG_RESOURCE_DIR ""
#endif

namespace funmem::frontend {

using namespace clang;

const DeclRefExpr* local_root(const Expr* e, bool& array) {
  for (;;) {
    e = e->IgnoreParens();
    if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
      const auto* v = dyn_cast<VarDecl>(d->getDecl());
      return v && v->hasLocalStorage() && !v->getType()->isReferenceType() ? d : nullptr;
    }
    if (const auto* m = dyn_cast<MemberExpr>(e);
        m && !m->isArrow() && isa<FieldDecl>(m->getMemberDecl())) {
      e = m->getBase();
      continue;
    }
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(e)) {
      const auto* c = dyn_cast<ImplicitCastExpr>(a->getBase()->IgnoreParens());
      if (!c || c->getCastKind() != CK_ArrayToPointerDecay) return nullptr;
      array = true;
      e = c->getSubExpr();
      continue;
    }
    if (const auto* c = dyn_cast<ImplicitCastExpr>(e);
        c && (c->getCastKind() == CK_NoOp || c->getCastKind() == CK_DerivedToBase ||
              c->getCastKind() == CK_UncheckedDerivedToBase)) {
      e = c->getSubExpr();
      continue;
    }
    return nullptr;
  }
}

namespace {

struct Effects {
  bool reads = false, writes = false;
};

/// What evaluating an expression may do besides computing its value: the local variables
/// it may change (assigned, incremented, its address taken or bound to a reference) and
/// those it names, and whether it may read or write memory (anything but a local
/// variable's value: what a pointer points to, globals, shared arrays, local arrays'
/// elements), in the functions it calls too.
class LocalUses : public RecursiveASTVisitor<LocalUses> {
public:
  explicit LocalUses(std::map<const FunctionDecl*, Effects>& memo) : memo_(memo) {}
  std::set<const VarDecl*> changed, named;
  Effects fx;
  bool VisitImplicitCastExpr(ImplicitCastExpr* e) {
    if (e->getCastKind() == CK_LValueToRValue) loaded(e->getSubExpr());
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator* b) {
    if (b->isAssignmentOp()) stored(b->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator* u) {
    if (u->isIncrementDecrementOp()) stored(u->getSubExpr());
    return true;
  }
  bool VisitCallExpr(CallExpr* c) {
    called(c->getDirectCallee());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr* c) {
    called(c->getConstructor());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr* d) {
    const auto* v = dyn_cast<VarDecl>(d->getDecl());
    if (!v || !v->isLocalVarDeclOrParm() || v->getType()->isArrayType()) return true;
    named.insert(v);
    uses_.push_back(d);
    return true;
  }
  // Operands that are never evaluated.
  bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr*) { return true; }
  bool TraverseDecltypeTypeLoc(DecltypeTypeLoc) { return true; }
  // A lambda's body runs where it is called (its call is a call of its operator()).
  bool TraverseLambdaExpr(LambdaExpr* l) {
    for (Expr* init : l->capture_inits())
      if (init) TraverseStmt(init);
    return true;
  }
  /// An argument's own place (`&x`, `&q.p`, or `x` bound to a reference parameter) is
  /// not changed by evaluating the argument: the call may change it afterwards, when
  /// every argument has been evaluated. (Passed on inside the argument, as in
  /// `g(&x)`, it is a change.)
  void argument(const Expr* a) {
    a = a->IgnoreParens();
    while (const auto* c = dyn_cast<ImplicitCastExpr>(a)) {
      if (c->getCastKind() == CK_LValueToRValue) return;
      a = c->getSubExpr()->IgnoreParens();
    }
    if (const auto* u = dyn_cast<UnaryOperator>(a); u && u->getOpcode() == UO_AddrOf)
      a = u->getSubExpr();
    else if (!a->isGLValue())
      return;
    bool array = false;
    if (const DeclRefExpr* d = local_root(a, array)) read_.insert(d);
  }
  /// Sorts the names seen into `changed`: those not only read.
  void finish() {
    for (const DeclRefExpr* d : uses_)
      if (!read_.count(d)) changed.insert(cast<VarDecl>(d->getDecl()));
  }

private:
  /// The load of a place: a local's value, or memory. (`c ? x : y` and `(a, x)` name
  /// their operands' places.)
  void loaded(const Expr* place) {
    place = place->IgnoreParens();
    if (const auto* c = dyn_cast<ConditionalOperator>(place)) {
      loaded(c->getTrueExpr());
      loaded(c->getFalseExpr());
      return;
    }
    if (const auto* b = dyn_cast<BinaryOperator>(place); b && b->getOpcode() == BO_Comma) {
      loaded(b->getRHS());
      return;
    }
    bool array = false;
    if (const DeclRefExpr* d = local_root(place, array)) {
      read_.insert(d);
      if (!array) return;
    }
    fx.reads = true;
  }
  void stored(const Expr* place) {
    bool array = false;
    if (!local_root(place, array) || array) fx.writes = true;
  }
  /// A function's effects: from its body, or, without one, from its kind (a builtin
  /// or a declaration of the bundled or a system header that takes a pointer or a
  /// reference, such as atomicAdd, may read and write; a function of the user's without
  /// a body touches no memory, as both tools assume).
  void called(const FunctionDecl* f) {
    if (!f) {
      fx = {true, true};
      return;
    }
    Effects e = effects(f);
    fx.reads |= e.reads;
    fx.writes |= e.writes;
  }
  Effects effects(const FunctionDecl* f) {
    f = f->getDefinition() ? f->getDefinition() : f;
    if (auto it = memo_.find(f); it != memo_.end()) return it->second;
    memo_[f] = {true, true}; // recursion: everything
    Effects e;
    if (f->hasBody()) {
      LocalUses inner(memo_);
      inner.TraverseStmt(f->getBody());
      if (const auto* c = dyn_cast<CXXConstructorDecl>(f))
        for (const CXXCtorInitializer* i : c->inits())
          if (i->getInit()) inner.TraverseStmt(i->getInit());
      e = inner.fx; // (a method's object is reached through `this`: memory)
    } else {
      const SourceManager& sm = f->getASTContext().getSourceManager();
      const SourceLocation l = sm.getExpansionLoc(f->getLocation());
      const FileEntry* fe = sm.getFileEntryForID(sm.getFileID(l));
      const bool library = f->getBuiltinID() != 0 || sm.isInSystemHeader(l) ||
                           (fe && fe->getName().startswith("/funmem-extract/"));
      bool pointers = false;
      for (const ParmVarDecl* p : f->parameters())
        pointers = pointers || p->getType()->isPointerType() || p->getType()->isReferenceType();
      const bool pure =
          f->getBuiltinID() && f->getASTContext().BuiltinInfo.isConst(f->getBuiltinID());
      if (library && pointers && !pure) e = {true, true};
    }
    memo_[f] = e;
    return e;
  }
  std::map<const FunctionDecl*, Effects>& memo_;
  std::set<const DeclRefExpr*> read_;
  std::vector<const DeclRefExpr*> uses_;
};

} // namespace

std::optional<std::string> unsequenced_arguments(const Expr* const* args, unsigned n) {
  if (n < 2) return std::nullopt;
  std::map<const FunctionDecl*, Effects> memo;
  std::vector<LocalUses> uses;
  for (unsigned i = 0; i < n; ++i) {
    uses.emplace_back(memo);
    uses[i].argument(args[i]);
    uses[i].TraverseStmt(const_cast<Expr*>(args[i]));
    uses[i].finish();
  }
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) {
      if (j == i) continue;
      for (const VarDecl* v : uses[i].changed)
        if (uses[j].named.count(v))
          return "one may change '" + v->getNameAsString() + "', which another uses";
      if (uses[i].fx.writes && (uses[j].fx.reads || uses[j].fx.writes))
        return "one may write memory that another reads or writes";
    }
  return std::nullopt;
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

namespace {
/// The named fields of `r` and of its non-virtual bases called `name`.
int fields_named(const RecordDecl* r, const std::string& name) {
  int n = 0;
  if (!r || !(r = r->getDefinition())) return 0;
  for (const FieldDecl* f : r->fields())
    n += f->isAnonymousStructOrUnion() ? fields_named(f->getType()->getAsRecordDecl(), name)
                                       : f->getNameAsString() == name;
  if (const auto* c = dyn_cast<CXXRecordDecl>(r))
    for (const CXXBaseSpecifier& b : c->bases())
      n += fields_named(b.getType()->getAsRecordDecl(), name);
  return n;
}
} // namespace

std::string member_name(const RecordDecl* whole, const FieldDecl* f) {
  std::string n = f->getNameAsString();
  if (fields_named(whole, n) <= 1) return n;
  // Named by its class (an anonymous member's by the named class around it).
  const RecordDecl* owner = f->getParent();
  while (owner && owner->isAnonymousStructOrUnion())
    owner = dyn_cast<RecordDecl>(owner->getParent());
  return (owner ? owner->getNameAsString() : std::string()) + "::" + n;
}

std::string kernel_name(const FunctionDecl* f, bool qualified) {
  std::string name;
  llvm::raw_string_ostream os(name);
  f->getNameForDiagnostic(os, f->getASTContext().getPrintingPolicy(), qualified);
  return os.str();
}

namespace {

/// The compiler arguments of the device-side parse (the tool name first, the file last
/// are added by the caller).
std::vector<std::string> device_args(const std::string& code,
                                     const std::vector<std::string>& clang_args) {
  std::vector<std::string> args = {"-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                                   "--cuda-gpu-arch=sm_70", "-std=c++17",
                                   // Every CUDA compiler defines it (clang in the CUDA
                                   // headers that -nocudainc leaves out).
                                   "-D__CUDACC__",
                                   // A verdict depends on the source alone, never on
                                   // the clock: __DATE__, __TIME__, __TIMESTAMP__ refused.
                                   "-Werror=date-time", "-include", kHeaderPath,
                                   "-Wno-unknown-cuda-version", "-I/funmem-extract/include"};
  if (std::string rd = FUNMEM_CLANG_RESOURCE_DIR; !rd.empty()) {
    args.push_back("-resource-dir");
    args.push_back(rd);
  }
  std::vector<std::string> header = read_gpuverify_header(code).clang_args;
  args.insert(args.end(), header.begin(), header.end());
  args.insert(args.end(), clang_args.begin(), clang_args.end());
  return args;
}

/// `#include "cuda.h"` and its kin: the bundled header, included first, has it all.
tooling::FileContentMappings device_files() {
  const char* empty = "#pragma once\n";
  return {{kHeaderPath, cuda_min_header()},
          {kRtModelPath, rt_model_header()},
          {"/funmem-extract/include/cuda.h", empty},
          {"/funmem-extract/include/cuda_runtime.h", empty}};
}

/// Runs the preprocessor over the file, with the callbacks made for it watching.
class WatchedPreprocessing : public PreprocessOnlyAction {
public:
  explicit WatchedPreprocessing(const PreprocessorWatch& watch) : watch_(watch) {}

private:
  bool BeginSourceFileAction(CompilerInstance& ci) override {
    ci.getPreprocessor().addPPCallbacks(watch_(ci.getPreprocessor()));
    return PreprocessOnlyAction::BeginSourceFileAction(ci);
  }
  const PreprocessorWatch& watch_;
};

} // namespace

bool preprocess_device_code(const std::string& code, const std::string& file,
                            const std::vector<std::string>& clang_args,
                            const PreprocessorWatch& watch) {
  std::vector<std::string> args = device_args(code, clang_args);
  args.insert(args.begin(), "funmem-extract");
  args.insert(args.end(), {"-fsyntax-only", "-w", file});
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> overlay(
      new llvm::vfs::OverlayFileSystem(llvm::vfs::getRealFileSystem()));
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory(new llvm::vfs::InMemoryFileSystem);
  overlay->pushOverlay(memory);
  llvm::IntrusiveRefCntPtr<FileManager> files(new FileManager(FileSystemOptions(), overlay));
  memory->addFile(file, 0, llvm::MemoryBuffer::getMemBufferCopy(code));
  const tooling::FileContentMappings mapped = device_files();
  for (const auto& [name, text] : mapped)
    memory->addFile(name, 0, llvm::MemoryBuffer::getMemBuffer(text));
  IgnoringDiagConsumer quiet;
  tooling::ToolInvocation run(args, std::make_unique<WatchedPreprocessing>(watch), files.get());
  run.setDiagnosticConsumer(&quiet);
  return run.run();
}

std::unique_ptr<ASTUnit> parse_device_code(const std::string& code, const std::string& file,
                                           const std::vector<std::string>& clang_args,
                                           std::vector<std::string>& errors) {
  std::vector<std::string> args = device_args(code, clang_args);
  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  IntrusiveRefCntPtr<DiagnosticOptions> diag_opts = new DiagnosticOptions();
  diag_opts->ShowColors = false;
  TextDiagnosticPrinter printer(diag_os, diag_opts.get());
  const tooling::FileContentMappings files = device_files();
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

} // namespace funmem::frontend
