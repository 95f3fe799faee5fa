// FUN / FUNMEM type checking (see typecheck.h). One Checker walks the program with
// a scoped environment; every error is recorded and checking continues, with names
// whose definition failed marked as poisoned so that one mistake is reported once.
// This file: the environment, scalar expressions, sizes, types and bodies; let
// statements are in typecheck_let.cpp.
#include "ir/typecheck_impl.h"

namespace funmem {

namespace tc {

std::string pos_text(Pos p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

Info scalar_info(ScalarType t) {
  Info i;
  i.kind = Info::Kind::Scalar;
  i.elem = t;
  return i;
}

Info mem_info() {
  Info i;
  i.kind = Info::Kind::Mem;
  return i;
}

std::string shape_text(const std::vector<Poly>& dims, ScalarType elem) {
  std::string s;
  for (const Poly& d : dims)
    s += "[" + d.to_string() + "]";
  return s + scalar_type_name(elem);
}

std::string info_text(const Info& i) {
  switch (i.kind) {
  case Info::Kind::Scalar:
    return scalar_type_name(i.elem);
  case Info::Kind::Mem:
    return "mem";
  case Info::Kind::Array: {
    std::string s = shape_text(i.dims, i.elem);
    if (i.lmad) s += " @" + i.mem + " -> " + i.lmad->to_string();
    return s;
  }
  case Info::Kind::Poisoned:
    return "<error>";
  }
  return "?";
}

std::vector<Diagnostic> Checker::run(const Def& d) {
  push();
  for (const Binding& b : d.params) {
    Info i = type_info(*b.type, {});
    if (i.kind == Info::Kind::Array) i.roots = {fresh_root()};
    bind(b.name, i);
  }
  std::vector<Info> rets;
  for (const Type& t : d.rets) {
    if (t.ann) error(t.pos, "result types carry no memory annotation");
    Type plain = t;
    plain.ann.reset();
    rets.push_back(type_info(plain, {}, /*need_ann=*/false));
  }
  push();
  std::vector<const Info*> res = body(d.body);
  if (res.size() == rets.size()) {
    for (size_t k = 0; k < res.size(); ++k) {
      const Info& got = *res[k];
      const Info& want = rets[k];
      if (got.kind == Info::Kind::Poisoned || want.kind == Info::Kind::Poisoned) continue;
      Pos p = d.body.results[k].pos;
      if (!same_shape(got, want))
        error(p, "result " + std::to_string(k + 1) + " '" + d.body.results[k].s + "' has type " +
                     info_text(got) + " but the definition returns " + info_text(want));
      if (lang_ == Lang::FunMem && got.kind == Info::Kind::Array) check_prog_result(d, res, k);
    }
  } else {
    error(d.body.pos, "the body returns " + std::to_string(res.size()) +
                          " values but the definition declares " + std::to_string(rets.size()));
  }
  pop();
  pop();
  return errs_;
}

void Checker::error(Pos p, std::string msg) {
  errs_.push_back(Diagnostic{"type", p, std::move(msg)});
}

int Checker::fresh_root() {
  int r = next_root_++;
  if (!local_roots_.empty()) local_roots_.back().insert(r);
  return r;
}

void Checker::push() {
  scopes_.emplace_back();
  defs_.emplace_back();
}

void Checker::pop() {
  scopes_.pop_back();
  defs_.pop_back();
}

const Info* Checker::find(const std::string& n) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(n);
    if (f != it->end()) return &f->second;
  }
  return nullptr;
}

void Checker::bind(const Name& n, Info i) {
  if (const Info* old = find(n.s)) {
    error(n.pos, "'" + n.s + "' is already defined at " + pos_text(old->pos));
  }
  i.pos = n.pos;
  scopes_.back()[n.s] = std::move(i);
}

/// p with the integer definitions in scope substituted (the outermost of a name).
Poly Checker::subst_defs(const Poly& p) const {
  std::map<std::string, Poly> used;
  p.for_each_var([&](const std::string& v) {
    if (used.count(v)) return;
    for (const auto& m : defs_)
      if (auto it = m.find(v); it != m.end()) {
        used.emplace(v, it->second);
        break;
      }
  });
  return used.empty() ? p : p.substitute(used);
}

/// Looks up an array name in use: unbound, not an array, or consumed are errors.
const Info* Checker::use_array(const Name& n) {
  const Info* i = find(n.s);
  if (!i) {
    error(n.pos, "'" + n.s + "' is not defined");
    return nullptr;
  }
  if (i->kind == Info::Kind::Poisoned) return nullptr;
  if (i->kind != Info::Kind::Array) {
    error(n.pos, "'" + n.s + "' is not an array (it has type " + info_text(*i) + ")");
    return nullptr;
  }
  check_live(n, *i);
  return i;
}

void Checker::check_live(const Name& n, const Info& i) {
  for (int r : i.roots) {
    auto c = consumed_.find(r);
    if (c != consumed_.end()) {
      error(n.pos, "'" + n.s +
                       "' is used after it (or an alias of it) was consumed by the update at " +
                       pos_text(c->second));
      return;
    }
  }
}

void Checker::consume(const Name& n, const Info& i, Pos at) {
  if (!local_roots_.empty()) {
    const std::set<int>& local = local_roots_.back();
    const auto outside =
        std::count_if(i.roots.begin(), i.roots.end(), [&](int r) { return !local.count(r); });
    if (outside > 0) {
      error(n.pos, "'" + n.s + "' cannot be consumed here: " +
                       (outside == static_cast<long>(i.roots.size())
                            ? "it is defined outside"
                            : "it may be (an alias of) an array defined outside") +
                       " the enclosing kernel or loop body (pass it as a loop parameter, or "
                       "copy it)");
      return;
    }
  }
  for (int r : i.roots)
    consumed_.emplace(r, at);
}

// ------------------------------------------------------------ scalars

std::optional<ScalarType> Checker::sexp(const SExp& e) {
  return std::visit(
      Overloaded{[&](const Lit& l) -> std::optional<ScalarType> { return l.type; },
                 [&](const SVar& v) -> std::optional<ScalarType> {
                   const Info* i = find(v.name);
                   if (!i) {
                     error(e.pos, "'" + v.name + "' is not defined");
                     return std::nullopt;
                   }
                   if (i->kind == Info::Kind::Poisoned) return std::nullopt;
                   if (i->kind != Info::Kind::Scalar) {
                     error(e.pos, "'" + v.name + "' is " +
                                      (i->kind == Info::Kind::Mem ? "a memory block" : "an array") +
                                      ", not a scalar");
                     return std::nullopt;
                   }
                   return i->elem;
                 },
                 [&](const SUnary& u) -> std::optional<ScalarType> {
                   auto t = sexp(*u.a);
                   if (!t) return t;
                   return rule(unary_type(u.op, *t), e.pos);
                 },
                 [&](const SBinary& b) -> std::optional<ScalarType> {
                   auto ta = sexp(*b.a), tb = sexp(*b.b);
                   if (!ta || !tb) return std::nullopt;
                   return rule(binary_type(b.op, *ta, *tb), e.pos);
                 },
                 [&](const SCall& c) { return call(c, e.pos); }},
      e.node);
}

/// The type of a call of a built-in function.
std::optional<ScalarType> Checker::call(const SCall& c, Pos pos) {
  std::vector<std::optional<ScalarType>> ts;
  for (const SExpP& a : c.args)
    ts.push_back(sexp(*a));
  std::vector<ScalarType> args;
  for (auto& t : ts) {
    if (!t) return std::nullopt;
    args.push_back(*t);
  }
  return rule(call_type(c.fn, args), pos);
}

/// A typing rule's answer; its message is reported at `pos` when it refuses.
std::optional<ScalarType> Checker::rule(const OpType& r, Pos pos) {
  if (!r.type) error(pos, r.error);
  return r.type;
}

/// Checks that e is an i64 expression and returns its normal form (with `extra`
/// names allowed as free integer variables, for existential sizes).
std::optional<Poly> Checker::size(const SExp& e, const std::set<std::string>& extra,
                                  const char* what) {
  if (!extra.empty()) {
    // Existential names of the pattern being checked: bind them temporarily.
    push();
    for (const std::string& n : extra)
      scopes_.back()[n] = scalar_info(ScalarType::I64);
  }
  auto t = sexp(e);
  if (!extra.empty()) pop();
  if (!t) return std::nullopt;
  if (*t != ScalarType::I64) {
    error(e.pos, std::string(what) + " must have type i64, not " + scalar_type_name(*t));
    return std::nullopt;
  }
  try {
    auto p = to_poly(e);
    if (!p) {
      error(e.pos,
            std::string(what) + " must be a polynomial in integer names (with / % min max abs)");
      return std::nullopt;
    }
    return subst_defs(*p);
  } catch (const SymbolicOverflow&) {
    error(e.pos, std::string(what) + " overflows i64");
    return std::nullopt;
  }
}

std::optional<SymLmad> Checker::lmad(const LmadSyn& l, const std::set<std::string>& extra) {
  SymLmad r;
  bool ok = true;
  auto get = [&](const SExpP& e, const char* what) {
    auto p = size(*e, extra, what);
    if (!p) ok = false;
    return p.value_or(Poly(0));
  };
  switch (l.form) {
  case LmadSyn::Form::Row:
  case LmadSyn::Form::Col: {
    std::vector<Poly> shape;
    for (const SExpP& a : l.args)
      shape.push_back(get(a, "an LMAD size"));
    r = l.form == LmadSyn::Form::Row ? row_major(shape) : col_major(shape);
    break;
  }
  case LmadSyn::Form::Explicit:
    r.offset = get(l.offset, "an LMAD offset");
    for (const auto& [c, s] : l.dims) {
      Poly pc = get(c, "an LMAD count");
      Poly ps = get(s, "an LMAD stride");
      r.dims.emplace_back(pc, ps);
    }
    break;
  }
  if (!ok) return std::nullopt;
  return r;
}

// ------------------------------------------------------------ types

/// Γ ⊢ τ: converts a written type; `extra` are existential names of its pattern.
Info Checker::type_info(const Type& t, const std::set<std::string>& extra, bool need_ann) {
  Info i;
  switch (t.kind) {
  case Type::Kind::Scalar:
    i.kind = Info::Kind::Scalar;
    i.elem = t.elem;
    return i;
  case Type::Kind::Mem:
    if (lang_ == Lang::Fun) {
      error(t.pos, "the type 'mem' exists only in FUNMEM; this is a FUN program");
      return i;
    }
    i.kind = Info::Kind::Mem;
    return i;
  case Type::Kind::Array:
    break;
  }
  i.kind = Info::Kind::Array;
  i.elem = t.elem;
  bool ok = true;
  for (const SExpP& d : t.dims) {
    auto p = size(*d, extra, "an array size");
    if (!p) ok = false;
    i.dims.push_back(p.value_or(Poly(0)));
  }
  if (lang_ == Lang::Fun) {
    if (t.ann) error(t.pos, "memory annotations exist only in FUNMEM; this is a FUN program");
  } else if (t.ann) {
    const Info* m = find(t.ann->mem.s);
    if (!m && !extra.count(t.ann->mem.s)) {
      error(t.ann->mem.pos, "memory block '" + t.ann->mem.s + "' is not defined");
      ok = false;
    } else if (m && m->kind != Info::Kind::Mem && m->kind != Info::Kind::Poisoned) {
      error(t.ann->mem.pos, "'" + t.ann->mem.s + "' is not a memory block");
      ok = false;
    }
    i.mem = t.ann->mem.s;
    auto l = lmad(t.ann->lmad, extra);
    if (!l) {
      ok = false;
    } else if (ok) {
      if (l->dims.size() != i.dims.size()) {
        error(t.ann->lmad.pos, "the LMAD has " + std::to_string(l->dims.size()) +
                                   " dimension(s) but the array has " +
                                   std::to_string(i.dims.size()));
        ok = false;
      } else {
        for (size_t k = 0; k < i.dims.size(); ++k)
          if (!(l->dims[k].first == i.dims[k])) {
            error(t.ann->lmad.pos, "LMAD count " + l->dims[k].first.to_string() + " of dimension " +
                                       std::to_string(k + 1) + " differs from the array size " +
                                       i.dims[k].to_string());
            ok = false;
          }
      }
    }
    i.lmad = l;
  } else if (need_ann) {
    error(t.pos, "array types in FUNMEM need a memory annotation '@mem -> LMAD'");
    ok = false;
  }
  if (!ok) i.kind = Info::Kind::Poisoned;
  return i;
}

bool Checker::same_shape(const Info& a, const Info& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == Info::Kind::Scalar) return a.elem == b.elem;
  if (a.kind == Info::Kind::Array) return a.elem == b.elem && a.dims == b.dims;
  return true;
}

/// Substitutes pattern names by result names (T-RESULT's S) in a pattern type.
Info Checker::apply(const Info& i, const std::map<std::string, Poly>& s,
                    const std::map<std::string, std::string>& mems) const {
  Info r = i;
  for (Poly& d : r.dims)
    d = subst_defs(d.substitute(s));
  if (r.lmad) {
    r.lmad->offset = subst_defs(r.lmad->offset.substitute(s));
    for (auto& [c, st] : r.lmad->dims) {
      c = subst_defs(c.substitute(s));
      st = subst_defs(st.substitute(s));
    }
  }
  auto m = mems.find(r.mem);
  if (m != mems.end()) r.mem = m->second;
  return r;
}

/// T-RESULT: values `vals` (named by `names`) bound to the pattern `pats` typed `want`.
void Checker::match_pattern(const std::vector<Binding>& pats, const std::vector<Info>& want,
                            const std::vector<Name>& names, const std::vector<const Info*>& vals,
                            Pos where, const std::string& what, bool with_memory) {
  if (vals.size() != pats.size()) {
    error(where, what + " gives " + std::to_string(vals.size()) + " values but " +
                     std::to_string(pats.size()) + " are expected");
    return;
  }
  std::map<std::string, Poly> s;
  std::map<std::string, std::string> mems;
  for (size_t k = 0; k < pats.size(); ++k) {
    if (want[k].kind == Info::Kind::Scalar && want[k].elem == ScalarType::I64)
      s[pats[k].name.s] = subst_defs(Poly::var(names[k].s));
    if (want[k].kind == Info::Kind::Mem) mems[pats[k].name.s] = names[k].s;
  }
  for (size_t k = 0; k < pats.size(); ++k) {
    if (!vals[k] || vals[k]->kind == Info::Kind::Poisoned || want[k].kind == Info::Kind::Poisoned)
      continue;
    Info w = apply(want[k], s, mems);
    const Info& got = *vals[k];
    bool ok = same_shape(got, w);
    if (ok && with_memory && got.kind == Info::Kind::Array && w.lmad && got.lmad)
      ok = got.mem == w.mem && *got.lmad == *w.lmad;
    if (!ok)
      error(names[k].pos, what + ": '" + names[k].s + "' has type " + info_text(got) + " but '" +
                              pats[k].name.s + "' expects " + info_text(w));
  }
}

// ------------------------------------------------------------ bodies

std::vector<const Info*> Checker::body(const Body& b) {
  for (const Stmt& s : b.stmts)
    stmt(s);
  std::vector<const Info*> out;
  for (const Name& n : b.results) {
    const Info* i = find(n.s);
    if (!i) {
      error(n.pos, "'" + n.s + "' is not defined");
      static const Info poisoned; // callers read every result: never a null one
      i = &poisoned;
    } else if (i->kind == Info::Kind::Array) {
      check_live(n, *i);
    }
    out.push_back(i);
  }
  return out;
}

void Checker::stmt(const Stmt& s) {
  std::visit(Overloaded{[&](const SLet& l) { let(l, s.pos); },
                        [&](const SAssume& a) {
                          auto t = sexp(*a.cond);
                          if (t && *t != ScalarType::Bool)
                            error(a.cond->pos,
                                  std::string(a.kind == "assume" ? "an assumption"
                                                                 : "an assert's condition") +
                                      " must be bool, not " + scalar_type_name(*t));
                        }},
             s.node);
}

/// The declared types of a pattern; existential names are those of its i64 scalars.
std::vector<Info> Checker::pattern_types(const std::vector<Binding>& pats, bool existential) {
  std::set<std::string> extra;
  if (existential)
    for (const Binding& b : pats)
      if (b.type && (b.type->kind == Type::Kind::Mem ||
                     (b.type->kind == Type::Kind::Scalar && b.type->elem == ScalarType::I64)))
        extra.insert(b.name.s);
  std::vector<Info> out;
  for (const Binding& b : pats) {
    if (!b.type) {
      out.push_back(Info{});
      continue;
    }
    out.push_back(type_info(*b.type, extra));
  }
  return out;
}

/// Binds a single-value pattern to `got`, checking it against the declared type.
/// `view` says whether a FUNMEM layout must equal the computed one.
void Checker::bind_one(const SLet& l, Pos at, std::optional<Info> got, bool view,
                       const std::string& what) {
  if (l.pats.size() != 1) {
    error(at, what + " gives one value but the pattern has " + std::to_string(l.pats.size()) +
                  " names");
    for (const Binding& b : l.pats)
      bind(b.name, Info{});
    return;
  }
  const Binding& b = l.pats[0];
  if (!b.type) {
    if (got && got->kind == Info::Kind::Array) {
      error(b.name.pos, "the binding of array '" + b.name.s + "' needs a type");
      got->kind = Info::Kind::Poisoned;
    }
    bind(b.name, got.value_or(Info{}));
    if (got && got->kind == Info::Kind::Scalar && got->elem == ScalarType::I64)
      record_def(l, b.name.s);
    return;
  }
  Info want = type_info(*b.type, {});
  if (got && got->kind != Info::Kind::Poisoned && want.kind != Info::Kind::Poisoned) {
    if (!same_shape(*got, want)) {
      error(b.type->pos, what + " has type " + info_text(*got) + " but '" + b.name.s +
                             "' is declared " + info_text(want));
    } else if (view && lang_ == Lang::FunMem && got->lmad && want.lmad &&
               (got->mem != want.mem || !(*got->lmad == *want.lmad))) {
      error(b.type->pos, "a view reuses its source's memory: '" + b.name.s + "' must be @" +
                             got->mem + " -> " + got->lmad->to_string() + ", not @" + want.mem +
                             " -> " + want.lmad->to_string());
    }
  }
  if (want.kind == Info::Kind::Array)
    want.roots = got && view ? got->roots : std::set<int>{fresh_root()};
  bind(b.name, want);
  // Integer scalars defined by a polynomial become definitions for size equality.
  if (want.kind == Info::Kind::Scalar && want.elem == ScalarType::I64) record_def(l, b.name.s);
}

void Checker::record_def(const SLet& l, const std::string& n) {
  if (auto* e = std::get_if<EScalar>(&l.exp.node)) {
    try {
      if (auto p = to_poly(*e->e)) defs_.back()[n] = subst_defs(*p);
    } catch (const SymbolicOverflow&) {
    }
  }
}

std::optional<std::vector<SymEntry>> Checker::entries(const Info& src, const std::vector<Entry>& es,
                                                      Pos at, std::vector<Poly>& dims_out,
                                                      bool& scalar_out) {
  if (es.size() > src.dims.size()) {
    error(at, std::to_string(es.size()) + " indices for an array of rank " +
                  std::to_string(src.dims.size()));
    return std::nullopt;
  }
  std::vector<SymEntry> out;
  bool ok = true;
  for (size_t k = 0; k < es.size(); ++k) {
    SymEntry se;
    auto st = size(*es[k].start, {}, es[k].is_index() ? "an index" : "a slice offset");
    if (!st) ok = false;
    se.start = st.value_or(Poly(0));
    if (es[k].count) {
      auto c = size(*es[k].count, {}, "a slice count");
      if (!c) ok = false;
      se.count = c.value_or(Poly(0));
      dims_out.push_back(*se.count);
    }
    if (es[k].stride) {
      auto s = size(*es[k].stride, {}, "a slice stride");
      if (!s) ok = false;
      se.stride = s.value_or(Poly(1));
    }
    out.push_back(se);
  }
  for (size_t k = es.size(); k < src.dims.size(); ++k)
    dims_out.push_back(src.dims[k]);
  scalar_out = dims_out.empty();
  if (!ok) return std::nullopt;
  return out;
}

Info Checker::array_info(ScalarType elem, std::vector<Poly> dims) {
  Info i;
  i.kind = Info::Kind::Array;
  i.elem = elem;
  i.dims = std::move(dims);
  return i;
}

/// The new value of an update has the updated place's type and does not alias the
/// updated array.
void Checker::check_update_value(const Name& arr, const Info& src, const Info& val,
                                 const Info& want, Pos at, const std::string& place) {
  if (!same_shape(val, want))
    error(at, "the new value has type " + info_text(val) + " but " + place + " has type " +
                  info_text(want));
  for (int r : val.roots)
    if (src.roots.count(r)) {
      error(at, "the new value aliases the updated array '" + arr.s + "'");
      return;
    }
}

} // namespace tc

std::vector<Diagnostic> typecheck(const Program& p) {
  tc::Checker c(p.lang);
  std::vector<Diagnostic> ds = c.run(p.def);
  std::stable_sort(ds.begin(), ds.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.col < b.pos.col;
  });
  return ds;
}

} // namespace funmem
