// The extractor (extractor.h): a kernel walked from its parameters, positions, objects
// of memory, unknowns, and extract() over a file's kernels.
#include "frontend/extract/extractor.h"

namespace funmem::frontend::detail {

void Extractor::run(const FunctionDecl* f) {
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
      type_range(Poly::var(n), t);
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

bool Extractor::is_fm_mem(QualType t) {
  const auto* r = t.getNonReferenceType()->getAsRecordDecl();
  return r && r->getName() == "fm_mem";
}

Pos Extractor::pos(SourceLocation l) const {
  PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(l));
  if (p.isInvalid()) return Pos{};
  return Pos{static_cast<int>(p.getLine()), static_cast<int>(p.getColumn())};
}

std::string Extractor::text(const Stmt* s) const {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(s->getSourceRange()), sm_,
                              ctx_.getLangOpts())
      .str();
}

void Extractor::unsupported(const Stmt* s, const std::string& what) {
  k_.unsupported.push_back({pos(s->getBeginLoc()), what});
  cover(s, "inside an unsupported construct");
}

void Extractor::cover(const Stmt* s, const std::string& how) {
  if (!s) return;
  seen_.emplace(s, how);
  for (const Stmt* c : s->children())
    cover(c, how);
}

Extractor::Obj Extractor::object(const ValueDecl* d, const std::string& n, Space space) {
  // Every declaration of a variable (`extern` ones, a block-scope redeclaration, a
  // static data member's two) names one object: keyed by the first declaration, sized
  // by the definition.
  d = canonical(d);
  if (auto it = objects_.find(d); d && it != objects_.end()) return it->second;
  // CUDA places every `extern __shared__` array of a kernel (and of the device functions
  // it calls) at the start of the block's dynamic shared memory: they are one object,
  // named after the first one met.
  const bool dynamic = d && space == Space::Shared && d->getType()->isIncompleteArrayType();
  // `--broken distinct-extern-shared` (tests of the generated-kernel campaign): each its
  // own object.
  if (dynamic && dynamic_shared_ && broken_ != "distinct-extern-shared")
    return objects_[d] = *dynamic_shared_;
  std::string name = n;
  for (int k = 2; object_names_.count(name); ++k)
    name = n + "#" + std::to_string(k);
  object_names_[name] = d;
  Obj o{name, space};
  if (d) objects_[d] = o;
  if (dynamic) dynamic_shared_ = o;
  if (d) {
    if (space == Space::Shared)
      k_.shared_arrays.push_back(name);
    else
      k_.global_vars.push_back(name);
    // Its size, for the question whether an access stays inside it.
    QualType t = d->getType();
    if (const auto* v = dyn_cast<VarDecl>(d))
      for (const VarDecl* r : v->redecls())
        if (!r->getType()->isIncompleteType()) t = r->getType();
    if (dynamic)
      k_.object_bytes[name] = -1;
    else if (!t->isIncompleteType() && !t->isDependentType() && !t->isReferenceType())
      k_.object_bytes[name] = ctx_.getTypeSizeInChars(t).getQuantity();
  }
  return o;
}

const ValueDecl* Extractor::canonical(const ValueDecl* d) {
  if (const auto* v = dyn_cast_or_null<VarDecl>(d)) return v->getCanonicalDecl();
  return d;
}

int64_t Extractor::bytes(QualType t, const Stmt* at) const {
  if (t->isIncompleteType() || t->isDependentType() || t->isFunctionType())
    throw NotAffine{"a type without a size ('" + t.getAsString() + "')", at};
  return ctx_.getTypeSizeInChars(t).getQuantity();
}

bool Extractor::in_header(const Decl* d) const {
  std::string file = sm_.getFilename(sm_.getSpellingLoc(d->getLocation())).str();
  return file == kHeaderPath || file == kRtModelPath;
}

std::optional<int64_t> exact_value(const llvm::APSInt& v) {
  if (v.isUnsigned() ? v.getActiveBits() > 63 : v.getMinSignedBits() > 64) return std::nullopt;
  return v.getExtValue();
}

Poly Extractor::any(const Stmt* at, std::string why, std::optional<int64_t> lo,
                    std::optional<int64_t> hi) {
  std::string n = "fm_any_" + std::to_string(k_.unknowns.size());
  k_.unknowns.push_back(n);
  k_.values.push_back(
      {at ? pos(at->getBeginLoc()) : Pos{}, n, at ? text(at) : std::string(), std::move(why)});
  Poly v = Poly::var(n);
  if (lo) k_.unknown_facts.push_back(ge(v, Poly(*lo)));
  if (hi) k_.unknown_facts.push_back(le(v, Poly(*hi)));
  return v;
}

Poly Extractor::any(SourceLocation at, const ValueDecl* name, std::string why) {
  Poly v = any(nullptr, std::move(why));
  k_.values.back().pos = pos(at);
  k_.values.back().text = name ? name->getNameAsString() : std::string();
  return v;
}

} // namespace funmem::frontend::detail

namespace funmem::frontend {

using namespace detail;

ExtractResult extract(const std::string& code, const std::string& file,
                      const std::vector<std::string>& clang_args, const ExtractOptions& options) {
  ExtractResult r;
  std::unique_ptr<ASTUnit> ast = parse_device_code(code, file, clang_args, r.errors);
  if (!ast || ast->getDiagnostics().hasErrorOccurred()) return r;
  for (const FunctionDecl* f : main_file_kernels(ast->getASTContext())) {
    KernelSummary k;
    try {
      Extractor(ast->getASTContext(), k, options).run(f);
    } catch (const SymbolicOverflow& e) {
      // Arithmetic the polynomials cannot hold (coefficients beyond 64 bits).
      k.unsupported.push_back(
          {k.pos, std::string("index arithmetic beyond 64 bits (") + e.what() + ")"});
    }
    r.kernels.push_back(std::move(k));
  }
  return r;
}

} // namespace funmem::frontend
