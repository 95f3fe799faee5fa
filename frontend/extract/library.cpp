// The extractor's library models (extractor.h): atomics, memcpy and memset, cuRAND,
// cooperative groups, barriers and funmem-cuda's own fm_* runtime.
#include "frontend/extract/extractor.h"

namespace funmem::frontend::detail {

bool touches_memory_builtin(const std::string& n) {
  return n.rfind("atomic", 0) == 0 || n == "memcpy" || n == "memset" || n == "fm_ld" ||
         n == "fm_st" || n == "fm_ld_tile" || n == "fm_ld_tile2" || n == "fm_sld" ||
         n == "fm_sst" || n == "__syncthreads";
}

/// A library function the extractor models: its name (or a prefix of it), its number of
/// arguments (exactly, or at least), and the member that models a call. A model returns
/// false when the call is not the one it models (a `sync` of another group, an atomic
/// on a non-pointer); the next entries and the default then apply.
struct Extractor::CallModel {
  const char* name;
  bool prefix;
  unsigned arity;
  bool at_least;
  bool (Extractor::*model)(const CallExpr*, const std::string&, const Ctx&);

  bool matches(const std::string& n, unsigned args) const {
    bool named = prefix ? n.rfind(name, 0) == 0 : n == name;
    return named && (at_least ? args >= arity : args == arity);
  }
};

void Extractor::builtin_call(const CallExpr* call, const std::string& n, const Ctx& c) {
  unsigned args = call->getNumArgs();
  if (is_annotation(call->getDirectCallee())) {
    annotation_call(call, n, c);
    return;
  }
  // In order: the first entry whose model accepts the call models it.
  static const CallModel kModels[] = {
      {"__syncthreads", false, 0, true, &Extractor::model_syncthreads},
      {"sync", false, 0, true, &Extractor::model_group_sync},
      {"synchronize", false, 0, true, &Extractor::model_group_sync},
      {"fm_ld", false, 3, false, &Extractor::model_fm_element},
      {"fm_st", false, 4, false, &Extractor::model_fm_element},
      {"fm_sld", false, 2, false, &Extractor::model_fm_shared},
      {"fm_sst", false, 3, false, &Extractor::model_fm_shared},
      {"fm_ld_tile", false, 6, false, &Extractor::model_fm_tile},
      {"fm_ld_tile2", false, 6, false, &Extractor::model_fm_tile},
      {"atomic", true, 1, true, &Extractor::model_atomic},
      {"memcpy", false, 3, false, &Extractor::model_memory_copy},
      {"memset", false, 3, false, &Extractor::model_memory_copy},
      {"__builtin_memcpy", false, 3, false, &Extractor::model_memory_copy},
      {"__builtin_memset", false, 3, false, &Extractor::model_memory_copy},
      {"curand", true, 1, true, &Extractor::model_curand},
  };
  for (const CallModel& m : kModels)
    if (m.matches(n, args) && (this->*m.model)(call, n, c)) return;
  if (touches_memory_builtin(n))
    throw NotAffine{"the call '" + text(call) + "' it cannot model", call};
  // Warp shuffles, fences, math functions: no memory.
  if (n == "__syncwarp") k_.warp_barriers = true;
  for (const Expr* a : call->arguments()) {
    if (a->getType()->isPointerType())
      throw NotAffine{"a call of '" + n + "' with a pointer argument", call};
    rvalue(a, c);
  }
  mark(call, "built-in function (no memory)");
}

void Extractor::annotation_call(const CallExpr* call, const std::string& n, const Ctx& c) {
  unsigned args = call->getNumArgs();
  mark(call, "GPUVerify annotation (a specification: not executed, not trusted)");
  if ((n == "__requires" || n == "__global_requires") && args == 1) precondition(call, c);
  // An invariant of a loop the extractor does not summarise (`while`, `do`).
  if ((n == "__invariant" || n == "__global_invariant") && args == 1)
    k_.assertions.push_back({pos(call->getBeginLoc()), "invariant", text(call->getArg(0)),
                             std::nullopt, c.guards, c.loops});
  if ((n == "__assert" || n == "__global_assert") && args == 1) {
    const Expr* e = call->getArg(0);
    k_.assertions.push_back({pos(call->getBeginLoc()), "assert", text(e),
                             uses_predicates(e) ? std::nullopt : formula(e), c.guards, c.loops});
    flush(c);
  }
}

bool Extractor::model_syncthreads(const CallExpr* call, const std::string&, const Ctx& c) {
  barrier(call, c);
  mark(call, "barrier");
  return true;
}

// Cooperative groups: `g.sync()`, `synchronize(g)` of a thread block (a barrier) or
// of the grid (a barrier of every thread of the launch).
bool Extractor::model_group_sync(const CallExpr* call, const std::string&, const Ctx& c) {
  unsigned args = call->getNumArgs();
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
    return true;
  }
  return false;
}

// funmem-cuda's element loads and stores: fm_ld<T>(m, i, site), fm_st<T>(m, i, v, site).
bool Extractor::model_fm_element(const CallExpr* call, const std::string& n, const Ctx& c) {
  unsigned args = call->getNumArgs();
  for (unsigned k = 1; k < args; ++k)
    rvalue(call->getArg(k), c);
  QualType t = n == "fm_ld" ? call->getType() : call->getArg(2)->getType();
  int64_t size = bytes(t, call);
  mark(call->getArg(0), "block");
  Target base = block(call->getArg(0), c);
  record(shifted(base, poly_at(call->getArg(1)) * Poly(size)), Poly(size),
         n == "fm_st" ? Kind::Write : Kind::Read, c, call);
  return true;
}

// A value a parametric kernel keeps in shared memory: fm_sld<T>(s, cell),
// fm_sst<T>(s, cell, v), a read / write of s[cell] (8-byte cells).
bool Extractor::model_fm_shared(const CallExpr* call, const std::string& n, const Ctx& c) {
  unsigned args = call->getNumArgs();
  for (unsigned k = 1; k < args; ++k)
    rvalue(call->getArg(k), c);
  Target s = ptr(call->getArg(0), c);
  record(shifted(s, poly_at(call->getArg(1)) * Poly(8)), Poly(8),
         n == "fm_sst" ? Kind::Write : Kind::Read, c, call);
  return true;
}

// A parametric kernel's load through its shared tile, fm_ld_tile<T>(m, i, site, tile,
// start, len) or, two-dimensional, fm_ld_tile2<T>(m, i, site, tile, cell, use): it
// reads tile[i - start] (tile[cell]) or m[i]; both are recorded.
bool Extractor::model_fm_tile(const CallExpr* call, const std::string& n, const Ctx& c) {
  unsigned args = call->getNumArgs();
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
  return true;
}

bool Extractor::model_atomic(const CallExpr* call, const std::string&, const Ctx& c) {
  unsigned args = call->getNumArgs();
  if (!call->getArg(0)->getType()->isPointerType()) return false;
  Target p = ptr(call->getArg(0), c);
  for (unsigned k = 1; k < args; ++k)
    rvalue(call->getArg(k), c);
  record(p, Poly(bytes(call->getArg(0)->getType()->getPointeeType(), call)), Kind::Atomic, c, call);
  return true;
}

bool Extractor::model_memory_copy(const CallExpr* call, const std::string& n, const Ctx& c) {
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
  return true;
}

// cuRAND (funmem_cuda_min.h): the state is read and written (curand_init: written).
bool Extractor::model_curand(const CallExpr* call, const std::string& n, const Ctx& c) {
  unsigned args = call->getNumArgs();
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
    return true;
  }
  return false;
}

} // namespace funmem::frontend::detail
