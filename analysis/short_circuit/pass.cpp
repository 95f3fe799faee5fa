// Short-circuiting: The pass object: lookups of blocks, aliases and layouts, and the entry point
// (see pass.h).
#include "analysis/short_circuit/pass.h"

namespace funmem::sc {

void Pass::run() {
  for (;;) {
    ix_ = Index{};
    for (Binding& b : p_.def.params)
      ix_.binding[b.name.s] = &b;
    ix_.body(p_.def.body);
    names_.reset();
    mixed_blocks_.reset();
    types_.clear();
    std::vector<Frame> fr{Frame{&p_.def.body, 0, Frame::Kind::Top, "", {}}};
    if (!sweep(p_.def.body, fr)) break;
  }
}

// the bound names, when asked for
const std::set<std::string>& Pass::names() {
  if (!names_) names_ = bound_names(p_.def);
  return *names_;
}

bool Pass::block_holds_other_types(const std::string& n) {
  const auto& t = arr(n);
  if (!t || opt_.broken_elemtype) return false; // (deliberately broken: types ignored)
  if (!mixed_blocks_) {
    std::map<std::string, std::set<ScalarType>> elems; // per may-alias class of blocks
    for (const auto& [name, b] : ix_.binding)
      if (b->type && b->type->kind == Type::Kind::Array && b->type->ann)
        elems[ix_.find(b->type->ann->mem.s)].insert(b->type->elem);
    mixed_blocks_.emplace();
    for (const auto& [root, es] : elems)
      if (es.size() > 1) mixed_blocks_->insert(root);
  }
  return mixed_blocks_->count(ix_.find(t->mem)) > 0;
}

// arrays that will share the destination (Point::also)
void Pass::set_defs(const std::vector<Frame>& frames, size_t point) {
  defs_.clear();
  for (size_t f = 0; f < frames.size(); ++f)
    poly_defs(*frames[f].body, f + 1 == frames.size() ? point : frames[f].idx, defs_, integer_fn());
}

std::vector<Formula> Pass::facts_of(const Stmt& s) {
  int dropped = 0;
  std::vector<Formula> out = stmt_facts(s, integer_fn(), &dropped);
  if (dropped && dropped_seen_.insert(&s).second) ++rep_.events["dropped: a fact over floats"];
  return out;
}

bool Pass::integer(const std::string& n) {
  auto t = scalar_type(n, 0);
  return t && (*t == ScalarType::I64 || *t == ScalarType::I32);
}

/// A name's scalar type: its binding's, or its definition's (a scalar expression, an
/// element read); counters are i64; nullopt when unknown (not an integer, then).
std::optional<ScalarType> Pass::scalar_type(const std::string& n, int depth) {
  if (auto it = types_.find(n); it != types_.end()) return it->second;
  if (depth > 64) return std::nullopt;
  std::optional<ScalarType> t;
  auto b = ix_.binding.find(n);
  if (ix_.iters.count(n)) {
    t = ScalarType::I64;
  } else if (b != ix_.binding.end() && b->second->type) {
    if (b->second->type->kind == Type::Kind::Scalar) t = b->second->type->elem;
  } else if (auto site = ix_.site.find(n); site != ix_.site.end()) {
    const auto* l = std::get_if<SLet>(&site->second.first->stmts[site->second.second].node);
    if (const auto* x = l ? std::get_if<EScalar>(&l->exp.node) : nullptr) {
      t = expr_type(*x->e, depth + 1);
    } else if (const auto* ix = l ? std::get_if<EIndex>(&l->exp.node) : nullptr) {
      if (const auto& at = arr(ix->arr.s)) t = at->elem;
    }
  }
  types_[n] = t;
  return t;
}

/// The type of a scalar expression by the typing rules (ir/scalar_types.h); nullopt when
/// a name's type is unknown.
std::optional<ScalarType> Pass::expr_type(const SExp& e, int depth) {
  try {
    return scalar_type_of(e, [&](const std::string& v) {
      auto vt = scalar_type(v, depth + 1);
      if (!vt) throw std::logic_error("unknown type of " + v);
      return *vt;
    });
  } catch (const std::logic_error&) {
    return std::nullopt;
  }
}

Pass::SolverOf Pass::at_use(const std::vector<Frame>& frames) {
  auto memo = std::make_shared<std::map<size_t, Solver*>>();
  return [this, frames, memo](const Acc& u) -> Solver& {
    if (u.at == SIZE_MAX) // every use is placed; one that is not cannot be judged
      throw Refused{Property::Summary, "internal: " + u.what + " has no program point"};
    auto& slot = (*memo)[u.at];
    if (!slot) slot = &solver_for(facts_at(frames, u.at));
    return *slot;
  };
}

/// One solver per set of facts, shared by the attempts (its cache too): the attempts
/// of a chain ask many of the same side conditions.
Solver& Pass::solver_for(std::vector<Formula> facts) {
  std::map<std::string, Formula> uniq;
  for (Formula& f : facts)
    uniq.emplace(f.to_string(), std::move(f));
  std::string key;
  std::vector<Formula> sorted;
  for (auto& [k, f] : uniq) {
    key += k + ";";
    sorted.push_back(std::move(f));
  }
  auto& slot = solvers_[key];
  if (!slot) slot = std::make_unique<Solver>(std::move(sorted), opt_.prover.timeout_ms);
  return *slot;
}

// ------------------------------------------------------------ lookups

/// The array type of a name (memory, layout, shape); nullopt for non-arrays. Kept
/// across sweeps: a proved point rewrites the types of its family, which it erases
/// (names are unique, and moving a statement changes no type); an in-place scalar map
/// renames a block in many types and clears it.
const std::optional<ArrT>& Pass::arr(const std::string& n) {
  auto [slot, fresh] = arr_cache_.try_emplace(n);
  if (fresh) slot->second = arr_of(n);
  return slot->second;
}

std::optional<ArrT> Pass::arr_of(const std::string& n) const {
  auto it = ix_.binding.find(n);
  if (it == ix_.binding.end() || !it->second->type) return std::nullopt;
  const Type& t = *it->second->type;
  if (t.kind != Type::Kind::Array || !t.ann) return std::nullopt;
  ArrT a;
  a.mem = t.ann->mem.s;
  a.lay = sym_lmad(t.ann->lmad);
  a.dims = polys(t.dims);
  a.elem = t.elem;
  return a;
}

bool Pass::same_block(const std::string& a, const std::string& b) {
  return ix_.find(a) == ix_.find(b);
}

/// The body whose `alloc` statement binds the memory `mem`; null when `mem` is not
/// bound by an alloc (a parameter, an if's or a loop's result).
const Body* Pass::alloc_body(const std::string& mem) const {
  auto site = ix_.site.find(mem);
  if (site == ix_.site.end()) return nullptr;
  const auto* l = std::get_if<SLet>(&site->second.first->stmts[site->second.second].node);
  return l && std::holds_alternative<EAlloc>(l->exp.node) ? site->second.first : nullptr;
}

/// The names that may hold the block of `m` while an attempt's statements run. A block
/// made by `alloc` is new: only names it flows into can hold it (not the parameters of
/// an enclosing loop, which hold the previous iteration's block). Any other block (a
/// parameter's) may be held by every name of its may-alias class.
std::set<std::string> Pass::block_names(const std::string& m) {
  std::set<std::string> out{m};
  if (alloc_body(m)) { // a fresh block
    std::vector<std::string> todo{m};
    while (!todo.empty()) {
      std::string n = todo.back();
      todo.pop_back();
      auto it = ix_.flows.find(n);
      if (it == ix_.flows.end()) continue;
      for (const std::string& t : it->second)
        if (out.insert(t).second) todo.push_back(t);
    }
    return out;
  }
  std::set<std::string> all;
  for (const auto& [n, _] : ix_.binding)
    all.insert(n);
  for (const auto& [n, _] : ix_.parent)
    all.insert(n);
  for (const std::string& n : all)
    if (same_block(n, m)) out.insert(n);
  return out;
}

std::string Pass::creation_text(const SLet& l, Pos pos) {
  std::string k = std::visit(
      Overloaded{[](const EKernel&) { return "kernel"; }, [](const EIota&) { return "iota"; },
                 [](const EReplicate&) { return "replicate"; }, [](const ECopy&) { return "copy"; },
                 [](const EScratch&) { return "scratch"; }, [](const EConcat&) { return "concat"; },
                 [](const EIf&) { return "if"; }, [](const auto&) { return "statement"; }},
      l.exp.node);
  return k + " at " + at(pos);
}

// ------------------------------------------------------------ facts
std::vector<Formula> Pass::facts_at(const std::vector<Frame>& fr, size_t point) {
  std::vector<Formula> out;
  // An input array has at most 2^28 elements (a larger one is a resource error before
  // the run starts).
  for (const Binding& b : p_.def.params)
    if (b.type && b.type->kind == Type::Kind::Array) {
      std::optional<Poly> elems = Poly(1);
      for (const SExpP& d : b.type->dims)
        if (auto pd = to_poly(*d)) {
          out.push_back(ge(*pd, Poly(0)));
          if (elems) elems = *elems * *pd;
        } else {
          elems.reset();
        }
      if (elems && !b.type->dims.empty()) out.push_back(le(*elems, Poly(kMaxElements)));
    }
  for (size_t f = 0; f < fr.size(); ++f) {
    if (fr[f].kind == Frame::Kind::Kernel || fr[f].kind == Frame::Kind::Loop)
      range_facts(fr[f].iter, fr[f].bound, out);
    size_t upto = f + 1 == fr.size() ? point : fr[f].idx;
    for (size_t k = 0; k < upto && k < fr[f].body->stmts.size(); ++k)
      for (Formula& g : facts_of(fr[f].body->stmts[k]))
        out.push_back(std::move(g));
  }
  return out;
}

} // namespace funmem::sc

namespace funmem {

Program short_circuit(const Program& p, ScReport* report, const ScOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  Program out = p;
  ScReport local;
  ScReport& rep = report ? *report : local;
  rep = ScReport{};
  if (p.lang == Lang::FunMem) {
    // The analysis names bindings globally; sibling scopes may reuse a name.
    out.def = uniquify(p.def);
    sc::Pass(out, rep, opt).run();
    if (rep.proved_points() + rep.scalar_maps() == 0) out = p;
  }
  std::sort(rep.attempts.begin(), rep.attempts.end(), [](const ScAttempt& a, const ScAttempt& b) {
    return std::tie(a.pos.line, a.pos.col) < std::tie(b.pos.line, b.pos.col);
  });
  rep.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

} // namespace funmem
