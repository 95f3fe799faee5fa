// The race detector's host harness (see harness.h): arguments filled from a job's
// values, bodyless functions defined, kernels launched on the CPU emulation.
#include "frontend/dynamic/harness.h"

#include "frontend/cuda/parse.h"

#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <sstream>

namespace funmem::frontend::detail {

using namespace clang;

namespace {

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
        // Converted explicitly: an enumeration's bit-field takes no integer.
        o_ << "  if (j.given(\"" << at << "\")) " << lhs << "." << f->getNameAsString()
           << " = static_cast<" << type_text(f->getType().getUnqualifiedType(), ctx_)
           << ">(j.scalar(\"" << at << "\"));\n";
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

} // namespace

std::string type_text(QualType t, const ASTContext& ctx) {
  PrintingPolicy pp(ctx.getLangOpts());
  pp.SuppressTagKeyword = false;
  return t.getAsString(pp);
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

std::string refusal(const SourceManager& sm, SourceLocation l, const std::string& what) {
  PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(l));
  return std::string(p.isValid() ? p.getFilename() : "?") + ":" +
         std::to_string(p.isValid() ? p.getLine() : 0) + ":" +
         std::to_string(p.isValid() ? p.getColumn() : 0) + ": error: cannot instrument " + what;
}

} // namespace funmem::frontend::detail
