// Parsing CUDA device code with Clang (parse.h).
#include "frontend/cuda/parse.h"
#include "frontend/extract.h"
#include "frontend/model/gpuverify_header.h"

#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/raw_ostream.h>

#include <functional>
#include <sstream>

#ifndef FUNMEM_CLANG_RESOURCE_DIR
#define FUNMEM_CLANG_RESOURCE_DIR ""
#endif

namespace funmem::frontend {

using namespace clang;

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
