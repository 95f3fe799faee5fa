// Type checking of let statements: every expression form, loops and patterns (see
// typecheck_impl.h).
#include "ir/typecheck_impl.h"

namespace funmem::tc {

void Checker::let(const SLet& l, Pos at) {
  std::visit([&](const auto& x) { let_exp(l, at, x); }, l.exp.node);
}

void Checker::let_exp(const SLet& l, Pos at, const EScalar& x) {
  auto t = sexp(*x.e);
  std::optional<Info> got;
  if (t) got = scalar_info(*t);
  bind_one(l, at, std::move(got), false, "the expression");
}

void Checker::let_exp(const SLet& l, Pos at, const EIndex& x) {
  const Exp& e = l.exp;
  const Info* src = use_array(x.arr);
  std::optional<Info> got;
  if (src) {
    std::vector<Poly> dims;
    bool scalar = false;
    auto se = entries(*src, x.entries, e.pos, dims, scalar);
    if (se) {
      if (scalar) {
        got = scalar_info(src->elem);
      } else {
        got = array_info(src->elem, std::move(dims));
        got->roots = src->roots;
        if (src->lmad) {
          got->mem = src->mem;
          got->lmad = lmad_index(*src->lmad, *se);
        }
      }
    }
  }
  bind_one(l, at, std::move(got), true, "the index");
}

void Checker::let_exp(const SLet& l, Pos at, const ELmadSlice& x) {
  const Exp& e = l.exp;
  const Info* src = use_array(x.arr);
  std::optional<Info> got;
  auto inner = lmad(x.lmad, {});
  if (src && inner) {
    if (src->dims.size() != 1) {
      error(e.pos, "an LMAD slice needs a one-dimensional array, '" + x.arr.s + "' has rank " +
                       std::to_string(src->dims.size()));
    } else {
      std::vector<Poly> dims;
      for (const auto& d : inner->dims)
        dims.push_back(d.first);
      got = array_info(src->elem, std::move(dims));
      got->roots = src->roots;
      if (src->lmad) {
        got->mem = src->mem;
        got->lmad = lmad_compose(*src->lmad, *inner);
      }
    }
  }
  bind_one(l, at, std::move(got), true, "the LMAD slice");
}

void Checker::let_exp(const SLet& l, Pos at, const ETranspose& x) {
  const Exp& e = l.exp;
  const Info* src = use_array(x.arr);
  std::optional<Info> got;
  if (src) {
    if (src->dims.size() < 2) {
      error(e.pos, "transpose needs an array of rank 2 or more");
    } else {
      got = *src;
      std::swap(got->dims[0], got->dims[1]);
      if (got->lmad) got->lmad = lmad_transpose(*got->lmad);
    }
  }
  bind_one(l, at, std::move(got), true, "the transpose");
}

void Checker::let_exp(const SLet& l, Pos, const EIf& x) {
  auto t = sexp(*x.cond);
  if (t && *t != ScalarType::Bool)
    error(x.cond->pos, std::string("the condition must be bool, not ") + scalar_type_name(*t));
  std::vector<Info> want = pattern_types(l.pats, true);
  for (size_t k = 0; k < l.pats.size(); ++k)
    if (!l.pats[k].type) error(l.pats[k].name.pos, "the results of 'if' need types");
  // Each branch starts from the consumptions before the if; after it, what
  // either branch consumed is consumed.
  const std::map<int, Pos> before = consumed_;
  std::map<int, Pos> after;
  // A result aliases every array from before the `if` that a branch may return.
  const int start = next_root_;
  std::vector<std::set<int>> outer(l.pats.size());
  for (const Body* b : {&x.then_body, &x.else_body}) {
    consumed_ = before;
    push();
    auto vals = body(*b);
    match_pattern(l.pats, want, b->results, vals, b->pos, "the branch", true);
    for (size_t k = 0; k < vals.size() && k < outer.size(); ++k)
      for (int r : vals[k]->roots)
        if (r < start) outer[k].insert(r);
    pop();
    after.insert(consumed_.begin(), consumed_.end());
  }
  consumed_ = after;
  bind_pattern(l.pats, want, outer);
}

void Checker::let_exp(const SLet& l, Pos at, const EKernel& x) {
  auto bound = size(*x.bound, {}, "a kernel bound");
  std::optional<Info> elem;
  push();
  local_roots_.emplace_back();
  bind(x.iter, scalar_info(ScalarType::I64));
  auto vals = body(x.body);
  local_roots_.pop_back();
  if (vals.size() != 1) {
    error(x.body.pos,
          "a kernel body returns exactly one value, not " + std::to_string(vals.size()));
  } else if (vals[0] && vals[0]->kind != Info::Kind::Poisoned) {
    const Info& v = *vals[0];
    if (v.kind == Info::Kind::Mem) {
      error(x.body.results[0].pos, "a kernel cannot return a memory block");
    } else {
      elem = v;
    }
  }
  // Sizes of the result may not depend on names local to the body.
  std::set<std::string> locals;
  for (const auto& [n, i] : scopes_.back())
    locals.insert(n);
  pop();
  std::optional<Info> got;
  if (elem && bound) {
    std::vector<Poly> dims{*bound};
    for (const Poly& d : elem->dims) {
      for (const std::string& fv : d.free_vars())
        if (locals.count(fv))
          error(x.body.results[0].pos, "the size " + d.to_string() +
                                           " of the kernel's result depends on '" + fv +
                                           "', which is local to the kernel body");
      dims.push_back(d);
    }
    got = array_info(elem->elem, dims);
  }
  bind_one(l, at, std::move(got), false, "the kernel");
}

void Checker::let_exp(const SLet& l, Pos at, const ELoop& x) {
  loop(l, x, at);
}

void Checker::let_exp(const SLet& l, Pos at, const EUpdate& x) {
  const Exp& e = l.exp;
  const Info* src = use_array(x.arr);
  std::optional<Info> got;
  if (src) {
    std::vector<Poly> dims;
    bool scalar = false;
    auto se = entries(*src, x.entries, e.pos, dims, scalar);
    std::optional<Info> val = atom(x.value);
    if (se && val && val->kind != Info::Kind::Poisoned) {
      Info want = scalar ? scalar_info(src->elem) : array_info(src->elem, dims);
      check_update_value(x.arr, *src, *val, want, x.value.pos,
                         scalar ? "the updated element" : "the updated slice");
    }
    got = *src;
    consume(x.arr, *src, e.pos);
  }
  bind_update(l, at, std::move(got));
}

void Checker::let_exp(const SLet& l, Pos at, const EUpdateLmad& x) {
  const Exp& e = l.exp;
  const Info* src = use_array(x.arr);
  const Info* val = use_array(x.value);
  auto inner = lmad(x.lmad, {});
  std::optional<Info> got;
  if (src) {
    if (src->dims.size() != 1) {
      error(e.pos, "an LMAD update needs a one-dimensional array, '" + x.arr.s + "' has rank " +
                       std::to_string(src->dims.size()));
    } else if (inner && val) {
      std::vector<Poly> dims;
      for (const auto& d : inner->dims)
        dims.push_back(d.first);
      Info want = array_info(src->elem, dims);
      check_update_value(x.arr, *src, *val, want, x.value.pos, "the LMAD slice");
    }
    got = *src;
    consume(x.arr, *src, e.pos);
  }
  bind_update(l, at, std::move(got));
}

void Checker::let_exp(const SLet& l, Pos at, const EConcat& x) {
  const Exp& e = l.exp;
  const Info* a = use_array(x.a);
  const Info* b = use_array(x.b);
  std::optional<Info> got;
  if (a && b) {
    if (a->elem != b->elem || a->dims.size() != b->dims.size() ||
        !std::equal(a->dims.begin() + 1, a->dims.end(), b->dims.begin() + 1)) {
      error(e.pos, "concat needs arrays that differ only in the outer size, not " + info_text(*a) +
                       " and " + info_text(*b));
    } else {
      std::vector<Poly> dims = a->dims;
      try {
        dims[0] = a->dims[0] + b->dims[0];
        got = array_info(a->elem, dims);
      } catch (const SymbolicOverflow&) {
        error(e.pos, "the size of the concatenation overflows i64");
      }
    }
  }
  bind_one(l, at, std::move(got), false, "the concatenation");
}

void Checker::let_exp(const SLet& l, Pos at, const EIota& x) {
  auto n = size(*x.n, {}, "the size of iota");
  std::optional<Info> got;
  if (n) got = array_info(ScalarType::I64, {*n});
  bind_one(l, at, std::move(got), false, "iota");
}

void Checker::let_exp(const SLet& l, Pos at, const EReplicate& x) {
  auto n = size(*x.n, {}, "the size of replicate");
  auto v = atom(x.value);
  std::optional<Info> got;
  if (n && v && v->kind != Info::Kind::Poisoned) {
    std::vector<Poly> dims{*n};
    dims.insert(dims.end(), v->dims.begin(), v->dims.end());
    got = array_info(v->elem, std::move(dims));
  }
  bind_one(l, at, std::move(got), false, "replicate");
}

void Checker::let_exp(const SLet& l, Pos at, const ECopy& x) {
  const Info* src = use_array(x.arr);
  std::optional<Info> got;
  if (src) got = array_info(src->elem, src->dims);
  bind_one(l, at, std::move(got), false, "the copy");
}

void Checker::let_exp(const SLet& l, Pos at, const EScratch&) {
  const Exp& e = l.exp;
  std::optional<Info> got;
  if (l.pats.size() == 1 && l.pats[0].type && l.pats[0].type->kind == Type::Kind::Array) {
    Type plain = *l.pats[0].type;
    plain.ann.reset();
    got = type_info(plain, {}, false);
  } else {
    error(e.pos, "scratch needs a binding of array type");
  }
  bind_one(l, at, std::move(got), false, "scratch");
}

void Checker::let_exp(const SLet& l, Pos at, const EAlloc& x) {
  const Exp& e = l.exp;
  std::optional<Info> got;
  if (lang_ == Lang::Fun) {
    error(e.pos, "alloc exists only in FUNMEM; this is a FUN program");
  } else if (size(*x.size, {}, "the size of an allocation")) {
    got = mem_info();
  }
  bind_one(l, at, std::move(got), false, "alloc");
}

std::optional<Info> Checker::atom(const AtomArg& a) {
  return std::visit(
      Overloaded{[&](const Name& n) -> std::optional<Info> {
                   const Info* i = find(n.s);
                   if (!i) {
                     error(n.pos, "'" + n.s + "' is not defined");
                     return std::nullopt;
                   }
                   if (i->kind == Info::Kind::Mem) {
                     error(n.pos, "'" + n.s + "' is a memory block, not a value");
                     return std::nullopt;
                   }
                   if (i->kind == Info::Kind::Array) check_live(n, *i);
                   return *i;
                 },
                 [&](const Lit& l) -> std::optional<Info> { return scalar_info(l.type); }},
      a.v);
}

void Checker::bind_update(const SLet& l, Pos at, std::optional<Info> got) {
  // The result of an update lives where its source lived (FUNMEM: same memory and
  // layout), with a fresh aliasing root.
  if (l.pats.size() == 1 && l.pats[0].type && got && got->kind == Info::Kind::Array && got->lmad) {
    Info want = type_info(*l.pats[0].type, {});
    if (want.kind == Info::Kind::Array && want.lmad && same_shape(*got, want) &&
        (want.mem != got->mem || !(*want.lmad == *got->lmad)))
      error(l.pats[0].type->pos, "an update's result lives in its source's memory: '" +
                                     l.pats[0].name.s + "' must be @" + got->mem + " -> " +
                                     got->lmad->to_string());
  }
  if (got) got->roots.clear();
  bind_one(l, at, std::move(got), false, "the update");
}

void Checker::bind_pattern(const std::vector<Binding>& pats, const std::vector<Info>& types,
                           const std::vector<std::set<int>>& aliases) {
  for (size_t k = 0; k < pats.size(); ++k) {
    Info i = types[k];
    if (i.kind == Info::Kind::Array) {
      i.roots = {fresh_root()};
      // Roots consumed by now are dead everywhere else: they no longer alias anything.
      if (k < aliases.size())
        for (int r : aliases[k])
          if (!consumed_.count(r)) i.roots.insert(r);
    }
    bind(pats[k].name, i);
  }
}

void Checker::loop(const SLet& l, const ELoop& x, Pos at) {
  // Initial values against the parameters (S maps parameters to initial values).
  std::vector<const Info*> inits;
  for (const Name& n : x.inits) {
    const Info* i = find(n.s);
    if (!i)
      error(n.pos, "'" + n.s + "' is not defined");
    else if (i->kind == Info::Kind::Array)
      check_live(n, *i);
    inits.push_back(i);
  }
  std::vector<Info> ptypes = pattern_types(x.params, true);
  for (const Binding& b : x.params)
    if (!b.type) error(b.name.pos, "loop parameters need types");
  if (x.inits.size() != x.params.size()) {
    error(at, "the loop has " + std::to_string(x.params.size()) + " parameters but " +
                  std::to_string(x.inits.size()) + " initial values");
  } else {
    match_pattern(x.params, ptypes, x.inits, inits, at, "the initial value", true);
  }
  size(*x.bound, {}, "a loop bound");
  const int start = next_root_;
  push();
  local_roots_.emplace_back();
  std::vector<int> param_roots;
  for (size_t k = 0; k < x.params.size(); ++k) {
    Info i = ptypes[k];
    int r = -1;
    if (i.kind == Info::Kind::Array) i.roots = {r = fresh_root()};
    param_roots.push_back(r);
    bind(x.params[k].name, i);
  }
  bind(x.iter, scalar_info(ScalarType::I64));
  auto vals = body(x.body);
  match_pattern(x.params, ptypes, x.body.results, vals, x.body.pos, "the loop body's result", true);
  std::vector<std::set<int>> results;
  for (const Info* v : vals)
    results.push_back(v->roots);
  local_roots_.pop_back();
  pop();
  const auto aliases = loop_aliases(x, inits, param_roots, results, start, at);
  // The pattern of the let against the parameters.
  std::vector<Info> want = pattern_types(l.pats, true);
  if (l.pats.size() == x.params.size()) {
    // Check pattern types equal parameter types with parameters renamed to pattern names.
    std::map<std::string, Poly> s;
    std::map<std::string, std::string> mems;
    for (size_t k = 0; k < l.pats.size(); ++k) {
      if (ptypes[k].kind == Info::Kind::Scalar && ptypes[k].elem == ScalarType::I64)
        s[x.params[k].name.s] = Poly::var(l.pats[k].name.s);
      if (ptypes[k].kind == Info::Kind::Mem) mems[x.params[k].name.s] = l.pats[k].name.s;
    }
    for (size_t k = 0; k < l.pats.size(); ++k) {
      if (!l.pats[k].type) {
        error(l.pats[k].name.pos, "the results of a loop need types");
        continue;
      }
      if (want[k].kind == Info::Kind::Poisoned || ptypes[k].kind == Info::Kind::Poisoned) continue;
      Info p = apply(ptypes[k], s, mems);
      bool ok = same_shape(p, want[k]);
      if (ok && p.lmad && want[k].lmad) ok = p.mem == want[k].mem && *p.lmad == *want[k].lmad;
      if (!ok)
        error(l.pats[k].type->pos, "'" + l.pats[k].name.s + "' is declared " + info_text(want[k]) +
                                       " but the loop parameter '" + x.params[k].name.s +
                                       "' gives " + info_text(p));
    }
  } else {
    error(at, "the loop has " + std::to_string(x.params.size()) +
                  " parameters but the pattern has " + std::to_string(l.pats.size()) + " names");
  }
  bind_pattern(l.pats, want, aliases);
}

std::vector<std::set<int>> Checker::loop_aliases(const ELoop& x,
                                                 const std::vector<const Info*>& inits,
                                                 const std::vector<int>& param_roots,
                                                 const std::vector<std::set<int>>& results,
                                                 int start, Pos at) {
  const size_t n = std::min({param_roots.size(), inits.size(), results.size()});
  // The parameters whose blocks the loop may update: those consumed in the body, and
  // (the next iteration updates it) one whose value a result for such a parameter is.
  std::vector<bool> consumed(n);
  for (size_t k = 0; k < n; ++k)
    consumed[k] = param_roots[k] >= 0 && consumed_.count(param_roots[k]);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < n; ++k)
      for (size_t j = 0; j < n && consumed[k]; ++j)
        if (!consumed[j] && param_roots[j] >= 0 && results[k].count(param_roots[j]))
          changed = consumed[j] = true;
  }
  // A consumed parameter consumes its initial value. Its next value must be the body's
  // own or a parameter's: an array from outside the body would be updated in place by
  // the next iteration while the body still reads it.
  for (size_t k = 0; k < n; ++k) {
    if (!consumed[k]) continue;
    if (inits[k]) consume(x.inits[k], *inits[k], at);
    for (int r : results[k])
      if (r < start) {
        error(x.body.results[k].pos,
              "'" + x.body.results[k].s +
                  "' may alias an array from outside the loop body, so it cannot be the next "
                  "value of '" +
                  x.params[k].name.s + "', whose block the loop updates (copy it)");
        break;
      }
  }
  std::vector<std::set<int>> init_roots(n);
  for (size_t k = 0; k < n; ++k)
    if (param_roots[k] >= 0 && inits[k]) init_roots[k] = inits[k]->roots;
  return loop_result_aliases(init_roots, param_roots, results, start);
}

/// T-MEM-PROG: an array result is preceded by its memory block and is row-major.
void Checker::check_prog_result(const Def& d, const std::vector<const Info*>& res, size_t k) {
  const Info& a = *res[k];
  const Name& n = d.body.results[k];
  if (k == 0 || !res[k - 1] || res[k - 1]->kind != Info::Kind::Mem ||
      d.body.results[k - 1].s != a.mem) {
    error(n.pos, "a FUNMEM result array is returned right after its memory block: expected '" +
                     a.mem + "' before '" + n.s + "'");
  }
  if (a.lmad && !(*a.lmad == row_major(a.dims)))
    error(n.pos, "a FUNMEM result array must be row-major, but '" + n.s + "' has layout " +
                     a.lmad->to_string() + " (expected " + row_major(a.dims).to_string() + ")");
}

} // namespace funmem::tc

namespace funmem {

std::vector<std::set<int>> loop_result_aliases(const std::vector<std::set<int>>& inits,
                                               const std::vector<int>& param_roots,
                                               const std::vector<std::set<int>>& results,
                                               int start) {
  const size_t n = std::min({inits.size(), param_roots.size(), results.size()});
  std::vector<std::set<int>> out(inits.begin(), inits.begin() + static_cast<long>(n));
  for (size_t k = 0; k < n; ++k)
    for (int r : results[k])
      if (r < start) out[k].insert(r);
  // A result that may be parameter j's value may be whatever result j may be.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < n; ++k)
      for (size_t j = 0; j < n; ++j)
        if (param_roots[j] >= 0 && results[k].count(param_roots[j]))
          for (int r : std::set<int>(out[j]))
            changed |= out[k].insert(r).second;
  }
  return out;
}

} // namespace funmem
