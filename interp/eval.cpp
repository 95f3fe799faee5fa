// The machine: statements and expressions (see machine.h).
#include "interp/machine.h"
#include "ir/names.h"

namespace funmem::machine {

// -------------------------------------------------------------- statements

Vals Machine::run_body(const Body& b) {
  size_t mark = env.size();
  if (live) {
    const BodyPlan& plan = live->plan(b);
    const std::vector<std::string>* outer = dying;
    drop(plan.unused);
    for (size_t k = 0; k < b.stmts.size(); ++k) {
      dying = &plan.dies_at[k];
      exec(b.stmts[k]);
      drop(plan.dies_at[k]);
    }
    dying = outer;
  } else {
    for (const Stmt& s : b.stmts)
      exec(s);
  }
  Vals out;
  for (const Name& n : b.results)
    out.push_back(lookup(n));
  env.resize(mark);
  return out;
}

namespace {

/// Whether `e` builds the contents of its array results (a view or an `if` or loop passes
/// contents built elsewhere): the audit's clock then says when they were complete.
bool creates(const Exp& e) {
  return std::holds_alternative<EKernel>(e.node) || std::holds_alternative<EUpdate>(e.node) ||
         std::holds_alternative<EUpdateLmad>(e.node) || std::holds_alternative<EConcat>(e.node) ||
         std::holds_alternative<EIota>(e.node) || std::holds_alternative<EReplicate>(e.node) ||
         std::holds_alternative<ECopy>(e.node) || std::holds_alternative<EScratch>(e.node);
}

} // namespace

bool Machine::is_element(const EIndex& x, const ArrV& a) {
  return x.entries.size() == a.lay.dims.size() && all_indices(x.entries);
}

/// The hot path of indexing: an element read, without building a layout.
Scalar Machine::element(const EIndex& x, const ArrV& a, Pos pos) {
  int64_t off = a.lay.offset;
  for (size_t k = 0; k < x.entries.size(); ++k) {
    const Entry& e = x.entries[k];
    int64_t i = eval_int(*e.start, "an index");
    auto [n, s] = a.lay.dims[k];
    if (i < 0 || i >= n)
      throw RunError("bounds", e.start->pos,
                     "index " + std::to_string(i) + " out of bounds for dimension " +
                         std::to_string(k) + " of '" + x.arr.s + "' (size " + std::to_string(n) +
                         ")");
    off = wrap_add(off, wrap_mul(i, s));
  }
  Scalar v = read(*a.block, off, a.elem, pos);
  audit_read(a, off, pos);
  return v;
}

void Machine::exec(const Stmt& s) {
  step(s.pos);
  if (const auto* a = std::get_if<SAssume>(&s.node)) {
    if (!as_bool(eval(*a->cond), a->cond->pos))
      throw RunError(a->kind, s.pos,
                     a->kind == "assume"
                         ? std::string("the assumption does not hold")
                         : "the run-time check " + print_sexp(*a->cond) + " does not hold");
    return;
  }
  const SLet& l = std::get<SLet>(s.node);
  if (l.pats.size() == 1) { // scalar statements bind their value directly
    if (const auto* x = std::get_if<EScalar>(&l.exp.node)) {
      bind(l.pats[0].name.s, eval(*x->e));
      return;
    }
    if (const auto* x = std::get_if<EIndex>(&l.exp.node)) {
      const ArrV& a = array_ref(x->arr);
      if (is_element(*x, a)) {
        Scalar v = element(*x, a, l.exp.pos);
        bind(l.pats[0].name.s, v);
        return;
      }
    }
  }
  Vals vs = eval_exp(l.pats, l.exp);
  if (auditing && creates(l.exp))
    for (Val& v : vs)
      if (auto* a = std::get_if<ArrV>(&v)) audit_complete(*a);
  for (size_t k = 0; k < l.pats.size(); ++k)
    bind(l.pats[k].name.s, std::move(vs[k]));
}

Val Machine::from_atom(const AtomArg& a) {
  if (const auto* lit = std::get_if<Lit>(&a.v)) return lit_value(*lit);
  const Name& n = std::get<Name>(a.v);
  return lookup(n);
}

/// Copy-on-update for value semantics: the updated array is a fresh copy.
ArrV Machine::updatable(const Name& arr, const std::string& value, Pos pos) {
  if (sem == Semantics::Heap) return array(arr);
  ArrV src;
  if (value != arr.s && dies_here(arr.s)) {
    src = take(arr);
    // A view whose layout may send two elements to one cell is copied: the new array has
    // one cell per element.
    if (src.block.use_count() == 1 && src.lay.nested()) {
      ++stats.in_place;
      return src;
    }
  } else {
    src = array(arr);
  }
  ArrV d = fresh(arr.s, src.elem, src.shape(), pos);
  copy(src, d.block, d.lay, pos);
  return d;
}

void Machine::dropped(const Name& n) {
  throw std::logic_error("interpreter: '" + n.s + "' at " + std::to_string(n.pos.line) + ":" +
                         std::to_string(n.pos.col) + " is used after its last mention");
}

void Machine::drop(const std::vector<std::string>& names) {
  for (const std::string& n : names)
    for (size_t k = env.size(); k-- > 0;)
      if (same(*env[k].first, n)) {
        if (auto* a = std::get_if<ArrV>(&env[k].second)) a->block.reset();
        break;
      }
}

ArrV Machine::take(const Name& n) {
  Val& v = env[slot_of(n.s, n.pos)].second;
  auto* a = std::get_if<ArrV>(&v);
  if (!a) throw RunError("elemtype", n.pos, "'" + n.s + "' is not an array");
  if (!a->block) dropped(n);
  ArrV out = std::move(*a);
  a->block.reset();
  return out;
}

/// Writes a scalar or an array value into the place `lay` of `dst`.
void Machine::store(const Val& v, const BlockP& dst, const ConcreteLmad& lay, ScalarType elem,
                    Pos pos) {
  if (const auto* s = std::get_if<Scalar>(&v)) {
    if (!lay.dims.empty())
      throw RunError("size", pos,
                     "a scalar where an array of rank " + std::to_string(lay.dims.size()) +
                         " is expected");
    if (s->t != elem)
      throw RunError("elemtype", pos,
                     std::string("a ") + scalar_type_name(s->t) + " value stored in an array of " +
                         scalar_type_name(elem));
    write(*dst, lay.offset, *s, pos);
    return;
  }
  const auto* a = std::get_if<ArrV>(&v);
  if (!a) throw RunError("elemtype", pos, "a memory block where a value is expected");
  if (a->elem != elem)
    throw RunError("elemtype", pos,
                   std::string("an array of ") + scalar_type_name(a->elem) +
                       " stored in an array of " + scalar_type_name(elem));
  copy(*a, dst, lay, pos);
}

bool Machine::all_indices(const std::vector<Entry>& es) {
  for (const Entry& e : es)
    if (!e.is_index()) return false;
  return true;
}

ConcreteLmad Machine::fix(const ConcreteLmad& l, int64_t i) {
  ConcreteLmad r;
  r.offset = wrap_add(l.offset, wrap_mul(i, l.dims.at(0).second));
  r.dims.assign(l.dims.begin() + 1, l.dims.end());
  return r;
}

ScalarType Machine::binding_elem(const Binding& b, ScalarType dflt) {
  return b.type && b.type->kind == Type::Kind::Array ? b.type->elem : dflt;
}

Vals Machine::eval_exp(const std::vector<Binding>& pats, const Exp& e) {
  const Pos pos = e.pos;
  return std::visit(
      Overloaded{[&](const EScalar& x) -> Vals { return {eval(*x.e)}; },
                 [&](const EIndex& x) -> Vals {
                   const ArrV& a = array_ref(x.arr);
                   if (is_element(x, a)) return {element(x, a, pos)};
                   bool full = false;
                   ConcreteLmad l = apply_entries(a, x.entries, x.arr, full);
                   if (full && !l.dims.empty()) full = false;
                   if (l.dims.empty() && x.entries.size() == a.lay.dims.size()) {
                     Scalar v = read(*a.block, l.offset, a.elem, pos);
                     audit_read(a, l.offset, pos);
                     return {v};
                   }
                   return {ArrV{a.block, l, a.elem, a.since, a.chain}};
                 },
                 [&](const ELmadSlice& x) -> Vals {
                   ArrV a = array(x.arr);
                   return {ArrV{a.block, apply_lmad(a, x.lmad, x.arr), a.elem, a.since, a.chain}};
                 },
                 [&](const ETranspose& x) -> Vals {
                   ArrV a = array(x.arr);
                   if (a.lay.dims.size() < 2)
                     throw RunError("size", pos, "transpose of '" + x.arr.s + "' of rank < 2");
                   std::swap(a.lay.dims[0], a.lay.dims[1]);
                   return {a};
                 },
                 [&](const EIf& x) -> Vals {
                   return run_body(as_bool(eval(*x.cond), x.cond->pos) ? x.then_body : x.else_body);
                 },
                 [&](const EKernel& x) -> Vals { return kernel(pats, x, pos); },
                 [&](const ELoop& x) -> Vals { return run_loop(x, pos); },
                 [&](const EUpdate& x) -> Vals {
                   const auto* vn = std::get_if<Name>(&x.value.v);
                   ArrV a = updatable(x.arr, vn ? vn->s : std::string(), pos);
                   bool full = false;
                   ConcreteLmad place = apply_entries(a, x.entries, x.arr, full);
                   if (auditing) audit_place(place);
                   store(from_atom(x.value), a.block, place, a.elem, x.value.pos);
                   return {a};
                 },
                 [&](const EUpdateLmad& x) -> Vals {
                   ArrV a = updatable(x.arr, x.value.s, pos);
                   ConcreteLmad place = apply_lmad(a, x.lmad, x.arr);
                   if (auditing) audit_place(place);
                   store(lookup(x.value), a.block, place, a.elem, x.value.pos);
                   return {a};
                 },
                 [&](const EConcat& x) -> Vals { return concat(pats, x, pos); },
                 [&](const EIota& x) -> Vals {
                   int64_t n = eval_int(*x.n, "an iota size");
                   ArrV d = destination(pats.at(0), {n}, ScalarType::I64, pos);
                   step(pos, n);
                   each(d.lay, [&](int64_t t, int64_t off) {
                     write(*d.block, off, Scalar::of_int(ScalarType::I64, t), pos);
                   });
                   return {d};
                 },
                 [&](const EReplicate& x) -> Vals { return replicate(pats, x, pos); },
                 [&](const ECopy& x) -> Vals {
                   ArrV a = array(x.arr);
                   ArrV d = destination(pats.at(0), a.shape(), a.elem, pos);
                   copy(a, d.block, d.lay, pos);
                   return {d};
                 },
                 [&](const EScratch&) -> Vals {
                   const Binding& b = pats.at(0);
                   if (!b.type || b.type->kind != Type::Kind::Array)
                     throw RunError("size", pos, "scratch needs an array type");
                   // Value semantics: zeros. Heap semantics: the place as it is (uninitialised).
                   ArrV d = destination(b, eval_dims(*b.type), b.type->elem, pos);
                   if (auditing) audit_scratch(d, pos);
                   return {d};
                 },
                 [&](const EAlloc& x) -> Vals {
                   int64_t n = eval_size(*x.size, "an allocation size");
                   return {MemV{new_block(pats.at(0).name.s, n, pos)}};
                 }},
      e.node);
}

Vals Machine::kernel(const std::vector<Binding>& pats, const EKernel& k, Pos pos) {
  int64_t n = eval_int(*k.bound, "a kernel bound");
  if (n < 0) throw RunError("size", k.bound->pos, "negative kernel bound " + std::to_string(n));
  if (n > INT32_MAX)
    throw RunError("resource", k.bound->pos, "a kernel of " + std::to_string(n) + " iterations");
  const Binding& b = pats.at(0);
  ScalarType elem = binding_elem(b, ScalarType::I64);
  std::optional<ArrV> dest;
  std::vector<int64_t> shape;
  if (b.type && b.type->kind == Type::Kind::Array) {
    shape = eval_dims(*b.type);
    if (!shape.empty()) shape[0] = n;
  }
  // Races are a property of the heap semantics; the value semantics does not trace.
  const bool trace = sem == Semantics::Heap;
  const bool outermost = trackers.empty();
  auto started = std::chrono::steady_clock::now();
  if (trace) push_tracker(pos);
  for (int64_t i = 0; i < n; ++i) {
    step(pos);
    if (trace) trackers.back().iter = i;
    size_t mark = env.size();
    bind(k.iter.s, Scalar::of_int(ScalarType::I64, i));
    Vals r = run_body(k.body);
    env.resize(mark);
    if (!dest) {
      if (shape.empty()) {
        shape = {n};
        if (const auto* a = std::get_if<ArrV>(&r.at(0)))
          for (int64_t s : a->shape())
            shape.push_back(s);
      }
      dest = destination(b, shape, elem, pos);
    }
    store(r.at(0), dest->block, fix(dest->lay, i), elem, k.body.pos);
  }
  if (trace) pop_tracker();
  if (outermost)
    stats.kernel_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!dest) {
    if (shape.empty()) shape = {0};
    dest = destination(b, shape, elem, pos);
  }
  return {*dest};
}

Data Machine::result(const Val& v, Pos pos) {
  Data d;
  if (const auto* s = std::get_if<Scalar>(&v)) {
    d.scalar = *s;
    return d;
  }
  if (std::holds_alternative<MemV>(v)) {
    d.is_mem = true;
    return d;
  }
  const ArrV& a = std::get<ArrV>(v);
  d.is_array = true;
  d.elem = a.elem;
  d.shape = a.shape();
  each(a.lay, [&](int64_t, int64_t off) {
    d.elems.push_back(read(*a.block, off, a.elem, pos));
    audit_read(a, off, pos);
  });
  return d;
}

/// A sequential loop: the body once per iteration, the parameters bound to the
/// values of the iteration before.
Vals Machine::run_loop(const ELoop& x, Pos pos) {
  // An initial value the loop mentions last (and once, and not in its body, which reads
  // it again at every iteration) moves into the loop, so that the loop's updates of it
  // may be done in place.
  Vals vals;
  for (const Name& n : x.inits) {
    const auto once = std::count_if(x.inits.begin(), x.inits.end(),
                                    [&](const Name& m) { return m.s == n.s; }) == 1;
    if (once && dies_here(n.s) && std::holds_alternative<ArrV>(lookup(n)) &&
        !body_mentions_name(x.body, n.s))
      vals.push_back(take(n));
    else
      vals.push_back(lookup(n));
  }
  int64_t n = eval_int(*x.bound, "a loop bound");
  for (int64_t i = 0; i < n; ++i) {
    step(pos);
    size_t mark = env.size();
    for (size_t k = 0; k < x.params.size(); ++k)
      bind(x.params[k].name.s, std::move(vals[k]));
    bind(x.iter.s, Scalar::of_int(ScalarType::I64, i));
    Vals next = run_body(x.body);
    env.resize(mark);
    vals = std::move(next);
  }
  return vals;
}

/// concat: both operands copied into one new array.
Vals Machine::concat(const std::vector<Binding>& pats, const EConcat& x, Pos pos) {
  ArrV a = array(x.a), b = array(x.b);
  std::vector<int64_t> sa = a.shape(), sb = b.shape();
  if (sa.empty() || sb.empty() || !std::equal(sa.begin() + 1, sa.end(), sb.begin() + 1, sb.end()))
    throw RunError("size", pos, "concat of shapes " + index_text(sa) + " and " + index_text(sb));
  std::vector<int64_t> shape = sa;
  if (__builtin_add_overflow(sa[0], sb[0], &shape[0]))
    throw RunError("resource", pos, "array size overflows");
  ArrV d = destination(pats.at(0), shape, a.elem, pos);
  ConcreteLmad top = d.lay, bottom = d.lay;
  top.dims[0].first = sa[0];
  bottom.offset = wrap_add(bottom.offset, wrap_mul(sa[0], d.lay.dims[0].second));
  bottom.dims[0].first = sb[0];
  copy(a, d.block, top, pos);
  copy(b, d.block, bottom, pos);
  return {d};
}

/// replicate: n copies of a scalar or an array.
Vals Machine::replicate(const std::vector<Binding>& pats, const EReplicate& x, Pos pos) {
  int64_t n = eval_int(*x.n, "a replicate count");
  if (n < 0) throw RunError("size", pos, "replicate of negative count " + std::to_string(n));
  Val v = from_atom(x.value);
  std::vector<int64_t> shape = {n};
  ScalarType elem = binding_elem(pats.at(0), ScalarType::I64);
  if (const auto* a = std::get_if<ArrV>(&v)) {
    for (int64_t s : a->shape())
      shape.push_back(s);
    elem = a->elem;
  } else if (const auto* s = std::get_if<Scalar>(&v)) {
    elem = s->t;
  }
  ArrV d = destination(pats.at(0), shape, elem, pos);
  // Rows of no element write nothing, however many there are.
  if (std::find(shape.begin() + 1, shape.end(), 0) != shape.end()) return {d};
  for (int64_t i = 0; i < n; ++i)
    store(v, d.block, fix(d.lay, i), elem, pos);
  return {d};
}

} // namespace funmem::machine
