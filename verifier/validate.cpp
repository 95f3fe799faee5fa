// Translation validation of generated kernels (see validate.h).
#include "verifier/validate.h"

#include "analysis/formula.h"
#include "frontend/model/rewrite.h"
#include "ir/convert.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace funmem {

using namespace frontend; // the extractor's summaries and the race checker

namespace {

using Subst = std::map<std::string, Poly>;

Poly normalise(const Poly& p, const Subst& s) {
  return (s.empty() ? p : p.substitute(s)).fold_divmod();
}

Formula normalise(const Formula& f, const Subst& s) {
  Formula g = s.empty() ? f : f.substitute(s);
  if (g.kind == Formula::Kind::Cmp) {
    g.lhs = g.lhs.fold_divmod();
    g.rhs = g.rhs.fold_divmod();
  }
  for (Formula& k : g.kids)
    k = normalise(k, Subst{});
  return g;
}

/// The launch's values everywhere in the summary.
void substitute(KernelSummary& k, const Subst& s) {
  for (Access& a : k.accesses) {
    a.index = normalise(a.index, s);
    for (Formula& g : a.guards)
      g = normalise(g, s);
    for (LoopCtx& l : a.loops) {
      l.lower = normalise(l.lower, s);
      l.count = normalise(l.count, s);
      l.step = normalise(l.step, s);
      for (Formula& f : l.facts)
        f = normalise(f, s);
    }
    for (auto& [n, v] : a.scope)
      v = normalise(v, s);
  }
}

/// The host's IMP names as the kernel sees them: a parameter `p_v_n` when `n` is
/// passed, else a name of its own (`h_n`) that only the host facts constrain.
Subst host_names(const std::vector<std::string>& names, const KernelSummary& k) {
  Subst s;
  for (const std::string& v : names) {
    std::string c = "p_" + cuda_name(v);
    bool param =
        std::find(k.scalar_params.begin(), k.scalar_params.end(), c) != k.scalar_params.end();
    s[v] = Poly::var(param ? c : "h_" + v);
  }
  return s;
}

std::optional<Poly> kernel_value(const SExpP& e, const KernelSummary& k) {
  if (!e) return std::nullopt;
  auto p = to_poly(*e);
  if (!p) return std::nullopt;
  return p->substitute(host_names(p->free_vars(), k));
}

/// A host fact as a formula over the kernel's names (nullopt: not one the prover reads).
std::optional<Formula> host_fact(const HostFact& f, const KernelSummary& k) {
  std::optional<Formula> r;
  std::string why;
  switch (f.kind) {
  case HostFact::Kind::Holds:
  case HostFact::Kind::Fails:
    if (!f.expr) return std::nullopt;
    r = formula_of(*f.expr, &why);
    if (r && f.kind == HostFact::Kind::Fails) r = Formula::negate(*r);
    break;
  case HostFact::Kind::Equal:
  case HostFact::Kind::Below: {
    auto p = f.expr ? to_poly(*f.expr) : std::nullopt;
    if (!p) return std::nullopt;
    Poly n = Poly::var(f.name);
    r = f.kind == HostFact::Kind::Equal ? eq(n, *p) : Formula::conj({ge(n, 0), lt(n, *p)});
    break;
  }
  }
  if (!r) return std::nullopt;
  return r->substitute(host_names(r->free_vars(), k));
}

/// `p` with `f / m` as `q`, `f % m` as `r` and the remaining `f` as `q * m + r`.
Poly flat_indices(const Poly& p, const std::string& f, const Poly& m, const Poly& q,
                  const Poly& r) {
  Poly out;
  for (const auto& [mono, c] : p.terms()) {
    Poly term(c);
    for (const auto& [atom, power] : mono) {
      Poly base;
      const std::vector<Poly>& args = atom->args;
      auto is_f = [&](const Poly& x) { return x == Poly::var(f); };
      switch (atom->kind) {
      case AtomKind::Var:
        base = atom->name == f ? q * m + r : Poly::var(atom->name);
        break;
      case AtomKind::Div:
        base = is_f(args[0]) && args[1] == m ? q
                                             : Poly::div(flat_indices(args[0], f, m, q, r),
                                                         flat_indices(args[1], f, m, q, r));
        break;
      case AtomKind::Mod:
        base = is_f(args[0]) && args[1] == m ? r
                                             : Poly::mod(flat_indices(args[0], f, m, q, r),
                                                         flat_indices(args[1], f, m, q, r));
        break;
      case AtomKind::Min:
        base = Poly::min(flat_indices(args[0], f, m, q, r), flat_indices(args[1], f, m, q, r));
        break;
      case AtomKind::Max:
        base = Poly::max(flat_indices(args[0], f, m, q, r), flat_indices(args[1], f, m, q, r));
        break;
      case AtomKind::Abs:
        base = Poly::abs(flat_indices(args[0], f, m, q, r));
        break;
      }
      for (int e = 0; e < power; ++e)
        term = term * base;
    }
    out = out + term;
  }
  return out;
}

/// The generated kernels run their iterations in a grid-stride loop over `fm_o` (or
/// `fm_f`, flattened; over blocks, `fm_o = blockIdx.x, ...`, in the intra version). Two
/// accesses of different threads are accesses of different iterations, so, with no
/// barrier in the kernel, it is race-free if distinct iterations do not conflict: the
/// loop is replaced by one virtual thread (block) per iteration, `fm_o` by its index,
/// and the launch by `fm_n` (fm_n * fm_m) threads in one block (fm_n blocks). Returns
/// the launch facts, or nothing when the kernel is not of that shape.
std::optional<std::vector<Formula>> virtualise(KernelSummary& k, const std::string& version,
                                               const Poly& n, const Poly& m) {
  if (k.barriers > 0) return std::nullopt;
  const std::string loop = version == "flat" ? "fm_f" : "fm_o";
  const Poly tx = Poly::var("threadIdx_x"), bx = Poly::var("blockIdx_x");
  // Outer: iteration fm_o is thread fm_o of one block. Intra: block fm_o. Flat: the
  // pair (fm_f / fm_m, fm_f % fm_m) -- a bijection onto [0, fm_n) x [0, fm_m) -- is
  // (block, thread), so quotient and remainder become plain indices.
  auto rewrite = [&](const Poly& p) {
    if (version == "flat") return flat_indices(p, loop, m, bx, tx);
    return p.substitute({{loop, version == "intra" ? bx : tx}});
  };
  std::function<Formula(Formula)> rewrite_f = [&](Formula f) {
    if (f.kind == Formula::Kind::Cmp) {
      f.lhs = rewrite(f.lhs);
      f.rhs = rewrite(f.rhs);
    }
    for (Formula& c : f.kids)
      c = rewrite_f(c);
    return f;
  };
  for (Access& a : k.accesses) {
    if (a.loops.empty() || a.loops[0].var != loop) return std::nullopt;
    a.loops.erase(a.loops.begin());
    a.index = rewrite(a.index);
    // The virtual thread's range, as a guard the prover narrows ranges with.
    if (version == "flat") a.guards.push_back(lt(tx, m));
    for (Formula& g : a.guards)
      g = rewrite_f(g);
    for (LoopCtx& l : a.loops) {
      l.lower = rewrite(l.lower);
      l.count = rewrite(l.count);
      l.step = rewrite(l.step);
      for (Formula& f : l.facts)
        f = rewrite_f(f);
    }
    for (auto& [name, v] : a.scope)
      v = rewrite(v);
  }
  for (const char* b : {"threadIdx_x", "blockIdx_x", "blockDim_x", "gridDim_x"})
    if (std::find(k.thread_names.begin(), k.thread_names.end(), b) == k.thread_names.end())
      k.thread_names.push_back(b);
  Poly bdim = Poly::var("blockDim_x"), gdim = Poly::var("gridDim_x");
  if (version == "intra") return std::vector<Formula>{eq(gdim, n)};
  if (version == "flat") return std::vector<Formula>{eq(gdim, n), eq(bdim, m)};
  return std::vector<Formula>{eq(bdim, n), eq(gdim, 1)};
}

/// A parametric variant (codegen/parametric.cpp) runs iteration fm_o = fm_c*B*s + fm_k*B
/// + threadIdx.x in the chunk loop fm_c (from blockIdx.x, step gridDim.x) and the loop
/// fm_k (0 .. fm_s - 1), B = blockDim.x. With threadIdx.x < B and fm_k < fm_s, the map
/// from (block, chunk, fm_k, thread) to fm_o is one-to-one, so, as for the plain kernel,
/// its global accesses are race-free if distinct iterations do not conflict: an access
/// under those two loops whose index, guards and inner loops depend on them and on the
/// thread only through fm_o gets one virtual thread per iteration. `k` keeps its global
/// accesses, virtualised, without the reads of blocks nothing in the kernel writes (the
/// tiles' loads: reads never race with reads); `shared` receives the shared-memory
/// accesses, checked on the real threads. Returns the launch facts of the virtual
/// threads, or nothing when an access is not of that shape.
///
/// A nest's variant (`dims` 2) runs outer iteration fm_o = fm_ci*B0 + threadIdx.y and
/// inner fm_p = fm_cj*B1*s + fm_k*B1 + threadIdx.x (B0 = blockDim.y, B1 = blockDim.x) in
/// the loops fm_ci (from blockIdx.y, step gridDim.y, ceil(n / B0) rows of chunks), fm_cj
/// (from blockIdx.x, step gridDim.x, ceil(m / (B1*s)) columns) and fm_k; its virtual
/// threads are numbered as the flattened version's, block fm_o and thread fm_p.
std::optional<std::vector<Formula>> virtualise_parametric(KernelSummary& k, KernelSummary& shared,
                                                          const Poly& n, const Poly& m, int dims) {
  const Poly tx = Poly::var("threadIdx_x"), bx = Poly::var("blockIdx_x");
  const Poly bdim = Poly::var("blockDim_x"), gdim = Poly::var("gridDim_x");
  const Poly by = Poly::var("blockIdx_y"), bdim_y = Poly::var("blockDim_y");
  const Poly gdim_y = Poly::var("gridDim_y");
  const Poly c = Poly::var("fm_c"), kk = Poly::var("fm_k"), s = Poly::var("fm_s");
  const Poly ci = Poly::var("fm_ci"), cj = Poly::var("fm_cj");
  const Poly v = Poly::var("fm_v"), vi = Poly::var("fm_vi");
  std::set<std::string> written;
  for (const Access& a : k.accesses)
    if (a.write && a.space != Space::Shared) written.insert(a.array);
  shared = k;
  std::erase_if(shared.accesses, [](const Access& a) { return a.space != Space::Shared; });
  std::erase_if(k.accesses, [&](const Access& a) {
    return a.space == Space::Shared || (!a.write && !written.count(a.array));
  });
  // The thread is what is left of the iteration once the chunks and round are taken out.
  const Subst to_v = dims == 2 ? Subst{{"threadIdx_x", v - bdim * s * cj - bdim * kk},
                                       {"threadIdx_y", vi - bdim_y * ci}}
                               : Subst{{"threadIdx_x", v - bdim * s * c - bdim * kk}};
  const Subst to_virtual = dims == 2 ? Subst{{"fm_v", tx}, {"fm_vi", bx}} : Subst{{"fm_v", tx}};
  // A part of an access as a function of the iteration alone: fm_v (fm_vi) in place of
  // the thread, then the virtual thread's names; nothing when a chunk, the round or the
  // real thread or block is still there.
  auto of_iteration = [](const std::vector<std::string>& names) {
    for (const std::string& name : names)
      if (name == "fm_c" || name == "fm_ci" || name == "fm_cj" || name == "fm_k" ||
          name.rfind("blockIdx_", 0) == 0 || name.rfind("threadIdx_", 0) == 0 ||
          name.rfind("blockDim_", 0) == 0 || name.rfind("gridDim_", 0) == 0)
        return false;
    return true;
  };
  auto rewrite = [&](Poly& p) {
    p = normalise(p, to_v);
    if (!of_iteration(p.free_vars())) return false;
    p = normalise(p, to_virtual);
    return true;
  };
  auto rewrite_f = [&](Formula& f) {
    f = normalise(f, to_v);
    if (!of_iteration(f.free_vars())) return false;
    f = normalise(f, to_virtual);
    return true;
  };
  // Chunk loop `l` over `count` chunks from `first` in steps of `step`: every chunk once.
  auto chunk_loop = [](const LoopCtx& l, const char* var, const Poly& count, const Poly& first,
                       const Poly& step) {
    const Poly times = normalise(Poly::div(count - first + step - 1, step), {});
    return l.var == var && l.lower == first && l.step == step && normalise(l.count, {}) == times;
  };
  const Poly per = bdim * s;
  const size_t chunk_loops = dims == 2 ? 2 : 1;
  for (Access& a : k.accesses) {
    if (a.loops.size() < chunk_loops + 1) return std::nullopt;
    const bool chunks =
        dims == 2
            ? chunk_loop(a.loops[0], "fm_ci", normalise(Poly::div(n + bdim_y - 1, bdim_y), {}), by,
                         gdim_y) &&
                  chunk_loop(a.loops[1], "fm_cj", normalise(Poly::div(m + per - 1, per), {}), bx,
                             gdim)
            : chunk_loop(a.loops[0], "fm_c", normalise(Poly::div(n + per - 1, per), {}), bx, gdim);
    const LoopCtx& round = a.loops[chunk_loops];
    if (!chunks || round.var != "fm_k" || !(round.lower == Poly(0)) || !(round.step == Poly(1)) ||
        !(round.count == s))
      return std::nullopt;
    a.loops.erase(a.loops.begin(), a.loops.begin() + static_cast<std::ptrdiff_t>(chunk_loops) + 1);
    if (!rewrite(a.index)) return std::nullopt;
    for (Formula& g : a.guards)
      if (!rewrite_f(g)) return std::nullopt;
    for (LoopCtx& l : a.loops) {
      for (Poly* p : {&l.lower, &l.count, &l.step})
        if (!rewrite(*p)) return std::nullopt;
      for (Formula& f : l.facts)
        if (!rewrite_f(f)) return std::nullopt;
    }
    for (auto& [name, value] : a.scope)
      value = normalise(normalise(value, to_v), to_virtual);
    a.phase = 0; // one interval: the barriers order nothing more (conservative)
  }
  k.barriers = 0;
  k.unknown.clear(); // barrier intervals concern the shared accesses, checked apart
  // One row of virtual blocks of virtual threads.
  std::vector<Formula> facts = {eq(bdim_y, 1), eq(gdim_y, 1)};
  if (dims == 2) {
    facts.push_back(eq(gdim, n));
    facts.push_back(eq(bdim, m));
  } else {
    facts.push_back(eq(bdim, n));
    facts.push_back(eq(gdim, 1));
  }
  return facts;
}

/// EXPAND of `index` over loops (innermost last in `loops`), each `var` from `lower` in
/// `count` steps of `step`; nullopt when a loop is not affine in it.
std::optional<SymLmad> expand_over(SymLmad l, const std::vector<LoopCtx>& loops) {
  for (size_t k = loops.size(); k-- > 0;) {
    const LoopCtx& c = loops[k];
    if (c.geometric) return std::nullopt;
    auto e = expand_loop(l, c.var, c.lower, c.step, c.count, c.var + "#k");
    if (!e) return std::nullopt;
    l = *e;
  }
  return l;
}

std::string where(Pos p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

} // namespace

bool Validation::ok() const {
  if (!errors.empty()) return false;
  for (const FunctionValidation& f : functions)
    if (!f.ok) return false;
  return true;
}

std::string device_part(const std::string& cu_text) {
  std::vector<std::string> lines;
  std::istringstream in(cu_text);
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  size_t first = lines.size(), main_at = lines.size();
  for (size_t k = 0; k < lines.size(); ++k) {
    if (first == lines.size() &&
        (lines[k].rfind("// The kernel at", 0) == 0 || lines[k].rfind("__global__", 0) == 0))
      first = k;
    if (lines[k].rfind("int main(", 0) == 0) main_at = k;
  }
  std::string out;
  for (size_t k = 0; k < lines.size(); ++k) {
    if (lines[k] == "#include \"funmem_cuda_rt.h\"")
      out += std::string("#include \"") + kRtModelPath + "\"";
    else if (k >= first && k < main_at)
      out += lines[k];
    out += "\n";
  }
  return out;
}

/// One generated store against the index function codegen recorded as its origin: the
/// index equal to the origin's (in the kernel's own names), and with virtual threads the
/// write set over the whole iteration space equal to the index function's.
StoreCheck check_store(const Access& a, size_t s,
                       const std::vector<std::pair<std::string, SExpP>>& store_loops, int o_ix,
                       const std::string& version, const ToImpReport& report,
                       const KernelSummary& k, const std::vector<const Access*>& virtual_writes,
                       const Subst& launch, bool virtual_threads, const Poly& n, const Poly& m,
                       std::vector<std::string>& problems) {
  StoreCheck sc;
  sc.pos = a.pos;
  sc.text = a.text;
  sc.extracted = display_names(a.index.to_string());
  if (o_ix < 0 || o_ix >= static_cast<int>(report.origins.size())) {
    sc.why = "codegen recorded no origin for this store";
    problems.push_back(where(a.pos) + ": " + sc.why);
    return sc;
  }
  const WriteOrigin& origin = report.origins[static_cast<size_t>(o_ix)];
  sc.block = origin.mem;
  std::vector<Poly> idx;
  std::string at;
  for (const std::string& i : origin.idx) {
    idx.push_back(Poly::var(i));
    at += (at.empty() ? "" : ", ") + i;
  }
  sc.index_fun =
      (origin.lmad.dims.empty() ? origin.lmad.offset.to_string() : origin.lmad.to_string()) +
      (at.empty() ? "" : " at [" + at + "]");
  Poly expected = lmad_apply(origin.lmad, idx);
  // IMP names -> the values their C names have at the store.
  Subst names;
  for (const std::string& v : expected.free_vars()) {
    auto sv = a.scope.find(cuda_name(v));
    if (sv != a.scope.end())
      names[v] = sv->second;
    else
      sc.why = "'" + v + "' (" + cuda_name(v) + ") has no value the extractor follows";
  }
  Poly mapped = normalise(normalise(expected, names), launch);
  sc.expected = display_names(mapped.to_string());
  if (a.array != "p_" + cuda_name(origin.mem))
    sc.why = "stores into '" + a.array + "', the write is into '" + origin.mem + "'";
  else if (sc.why.empty() && !(mapped == a.index))
    sc.why = "the index " + sc.extracted + " differs from the index function's " + sc.expected;
  sc.equal = sc.why.empty();
  if (!sc.equal) problems.push_back(where(a.pos) + ": " + sc.why);
  // The write sets over the whole iteration space.
  if (sc.equal && virtual_threads && s < virtual_writes.size()) {
    std::optional<SymLmad> want = SymLmad{expected, {}};
    const auto& loops = store_loops;
    for (size_t li = loops.size(); li-- > 0 && want;) {
      auto bound = loops[li].second ? to_poly(*loops[li].second) : std::nullopt;
      if (!bound)
        want.reset();
      else
        want = lmad_expand(loops[li].first, 0, *bound, *want);
    }
    if (want) {
      Subst rest;
      for (const std::string& v : lmad_free_vars(*want)) {
        auto sv = a.scope.find(cuda_name(v));
        rest[v] = sv != a.scope.end() ? sv->second : host_names({v}, k).at(v);
      }
      *want = lmad_substitute(lmad_substitute(*want, rest), launch);
    }
    const Access& va = *virtual_writes[s];
    std::optional<SymLmad> got = expand_over(SymLmad{va.index, {}}, va.loops);
    const Poly nn = normalise(n, launch), mm = normalise(m, launch);
    if (got && version != "") got = lmad_expand("threadIdx_x", 0, mm, *got);
    if (got) got = lmad_expand(version == "" ? "threadIdx_x" : "blockIdx_x", 0, nn, *got);
    if (got && want) {
      SymLmad cg = lmad_canonical_set(*got), cw = lmad_canonical_set(*want);
      sc.extracted_lmad = display_names(cg.to_string());
      sc.expected_lmad = display_names(cw.to_string());
      sc.lmad_equal = cg == cw;
    }
    if (!sc.lmad_equal)
      problems.push_back(where(a.pos) + ": the write set " +
                         (sc.extracted_lmad.empty() ? "(not one LMAD)" : sc.extracted_lmad) +
                         " is not shown equal to the index function's " +
                         (sc.expected_lmad.empty() ? "(not one LMAD)" : sc.expected_lmad));
  }
  return sc;
}

/// The race check of one generated function: on virtual threads, one per iteration,
/// where its shape allows (the plain versions, the parametric variants' global accesses
/// with their shared ones on the real threads), else on the real threads. `k` becomes
/// the summary its stores are checked against (`n`, `m`: the launch's bounds). Returns
/// whether the threads are virtual.
bool check_races(KernelSummary& k, const CudaFunction& fn, RaceOptions& o, const Poly& n,
                 const Poly& m, FunctionValidation& fv) {
  bool virtual_threads = false;
  const std::string& version = fn.version;
  const bool parametric = fn.parametric;
  KernelSummary shared, global = k;
  std::optional<std::vector<Formula>> par_facts;
  if (parametric) par_facts = virtualise_parametric(global, shared, n, m, fn.block_dims);
  if (par_facts) {
    // The shared accesses on the real threads, the global ones on virtual threads.
    RaceOptions og = o;
    og.facts.insert(og.facts.end(), par_facts->begin(), par_facts->end());
    fv.race = check_kernel(global, og);
    if (!shared.accesses.empty()) {
      KernelVerdict sv = check_kernel(shared, o);
      sv.questions.insert(sv.questions.end(), fv.race.questions.begin(), fv.race.questions.end());
      sv.ms += fv.race.ms;
      if (fv.race.verdict == Verdict::RaceFree) fv.race = sv;
    }
    k = global;
    virtual_threads = true;
  } else if (parametric) {
    fv.race = check_kernel(k, o);
    fv.problems.push_back("its loops are not a parametric variant's chunk and round loops "
                          "over fm_o: which iterations it runs is not shown");
  } else {
    if (auto launch_facts = virtualise(k, version, n, m)) {
      o.facts.insert(o.facts.end(), launch_facts->begin(), launch_facts->end());
      virtual_threads = true;
    }
    fv.race = check_kernel(k, o);
  }
  if (fv.race.verdict != Verdict::RaceFree) {
    std::string p = std::string("not proved race-free: ") + verdict_name(fv.race.verdict) +
                    (fv.race.reason.empty() ? "" : " (" + fv.race.reason + ")");
    if (fv.race.witness)
      p += std::string(": ") +
           (virtual_threads
                ? "(threads numbered by iteration: " +
                      std::string(fn.block_dims == 2   ? "block fm_o, thread fm_p"
                                  : version == "flat"  ? "block fm_f / fm_m, thread fm_f % fm_m"
                                  : version == "intra" ? "block fm_o"
                                                       : "thread fm_o") +
                      ") "
                : "") +
           display_names(fv.race.witness->first) + "; " + display_names(fv.race.witness->second);
    fv.problems.push_back(p);
  }
  return virtual_threads;
}

Validation validate_cuda(const CudaCode& code, const ToImpReport& report,
                         const std::string& cu_file, const RaceOptions& opt) {
  Validation v;
  ExtractResult ex;
  try {
    ex = extract(device_part(code.text), cu_file);
  } catch (const SymbolicOverflow& e) {
    v.errors.push_back(cu_file + ": error: the kernels' index arithmetic leaves 64 bits (" +
                       e.what() + ")");
    return v;
  }
  v.errors = ex.errors;
  if (!v.errors.empty()) return v;
  // The extractor makes a kernel whose arithmetic leaves 64 bits unsupported: for
  // generated code that is the documented limit, an error of the whole file.
  const std::string beyond = "index arithmetic beyond 64 bits (";
  for (const KernelSummary& k : ex.kernels)
    for (const Problem& p : k.unsupported)
      if (p.what.rfind(beyond, 0) == 0) {
        v.errors.push_back(cu_file + ": error: the kernels' index arithmetic leaves 64 bits (" +
                           p.what.substr(beyond.size()));
        return v;
      }
  std::map<std::string, const KernelSummary*> by_name;
  for (const KernelSummary& k : ex.kernels)
    by_name[k.name] = &k;
  for (const CudaKernelInfo& info : code.kernels) {
    for (const CudaFunction& fn : info.functions) {
      FunctionValidation fv;
      fv.name = fn.name;
      try {
        auto it = by_name.find(fn.name);
        if (it == by_name.end()) {
          v.errors.push_back(cu_file + ": error: the generated kernel '" + fn.name +
                             "' was not found by the extractor");
          continue;
        }
        KernelSummary k = *it->second;
        // The launch: what the host passes as fm_n and fm_m, and the intra version's blocks.
        Subst launch;
        RaceOptions o = opt;
        for (const HostFact& hf : info.host_facts)
          if (auto f = host_fact(hf, k)) o.facts.push_back(*f);
        auto bound = [&](const char* name, const SExpP& e) {
          Poly value = Poly::var(name);
          if (auto p = kernel_value(e, k)) {
            launch[name] = *p;
            value = *p;
          }
          o.facts.push_back(ge(value, 1));
          return value;
        };
        bool uses_m = fn.version == "intra" || fn.version == "flat" || fn.block_dims == 2;
        Poly n = bound("fm_n", info.outer_bound);
        Poly m = 1;
        if (uses_m) {
          m = bound("fm_m", info.inner_bound);
          if (fn.version == "intra") {
            o.facts.push_back(eq(Poly::var("blockDim_x"), m));
            o.facts.push_back(le(m, 1024));
          }
        }
        // A parametric variant's granularity: the dispatcher passes s >= 1 (the harness
        // takes --param values in [1, 2^20]); the kernel divides by blockDim.x * fm_s.
        if (fn.parametric) o.facts.push_back(ge(Poly::var("fm_s"), 1));
        for (Formula& f : o.facts)
          f = normalise(f, launch);
        substitute(k, launch);
        const KernelSummary as_written = k; // stores are compared in the kernel's own names
        const bool parametric = fn.parametric;
        const bool virtual_threads =
            check_races(k, fn, o, normalise(n, launch), normalise(m, launch), fv);
        // The stores against their origins (a parametric variant's writes into its
        // shared-memory tiles are not stores of the program).
        std::vector<const Access*> writes, virtual_writes;
        for (const Access& a : as_written.accesses)
          if (a.write && a.space != Space::Shared) writes.push_back(&a);
        for (const Access& a : k.accesses)
          if (a.write && a.space != Space::Shared) virtual_writes.push_back(&a);
        if (writes.size() != fn.stores.size())
          fv.problems.push_back("the extractor found " + std::to_string(writes.size()) +
                                " store(s), codegen generated " + std::to_string(fn.stores.size()));
        for (size_t s = 0; s < writes.size() && s < fn.stores.size(); ++s) {
          fv.stores.push_back(
              check_store(*writes[s], s,
                          fn.store_loops.size() > s ? fn.store_loops[s]
                                                    : std::vector<std::pair<std::string, SExpP>>{},
                          fn.stores[s],
                          fn.block_dims == 2 ? "flat"
                          : parametric       ? ""
                                             : fn.version,
                          report, k, virtual_writes, launch, virtual_threads, n, m, fv.problems));
        }
      } catch (const SymbolicOverflow& e) {
        // An index polynomial whose coefficients leave 64 bits: nothing is proved.
        fv.race.verdict = Verdict::Unknown;
        fv.problems.push_back(std::string("not validated: its index arithmetic leaves 64 bits (") +
                              e.what() + ")");
      }
      fv.ok = fv.problems.empty();
      v.functions.push_back(std::move(fv));
    }
  }
  return v;
}

std::string validation_report(const Validation& v, bool verbose) {
  std::string out;
  for (const std::string& e : v.errors)
    out += e + "\n";
  for (const FunctionValidation& f : v.functions) {
    int equal = 0;
    for (const StoreCheck& s : f.stores)
      equal += s.equal ? 1 : 0;
    out += f.name + ": " + (f.ok ? "validated" : "NOT validated") + ": " +
           verdict_name(f.race.verdict) + " (" + std::to_string(f.race.questions.size()) +
           " question(s), " + std::to_string(static_cast<int>(f.race.ms)) + " ms), " +
           std::to_string(equal) + "/" + std::to_string(f.stores.size()) +
           " store(s) equal to their index functions\n";
    for (const std::string& p : f.problems)
      out += "  " + p + "\n";
    if (verbose)
      for (const StoreCheck& s : f.stores)
        out += "  " + where(s.pos) + " " + s.block + "[" + s.extracted + "]" +
               (s.equal ? " == " : " != ") + s.index_fun + " = " + s.expected + "\n" +
               (s.extracted_lmad.empty()
                    ? ""
                    : "    writes " + s.extracted_lmad + (s.lmad_equal ? " == " : " != ") +
                          s.expected_lmad + "\n");
  }
  return out;
}

} // namespace funmem
