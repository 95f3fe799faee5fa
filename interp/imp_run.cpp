// Running IMP programs on the machine (see machine.h).
#include "interp/machine.h"

namespace funmem::machine {

struct ImpMachine {
  Machine& m;
  explicit ImpMachine(Machine& mm) : m(mm) {}

  Val* find(const std::string& n) {
    for (size_t k = m.env.size(); k-- > 0;)
      if (*m.env[k].first == n) return &m.env[k].second;
    return nullptr;
  }

  Val& var(const Name& n) {
    Val* v = find(n.s);
    if (!v) throw RunError("size", n.pos, "'" + n.s + "' is not declared");
    return *v;
  }

  void assign(const Name& n, Val v) { var(n) = std::move(v); }

  void run(const imp::Block& b) {
    for (const imp::Stmt& s : b)
      exec(s);
  }

  void exec(const imp::Stmt& s) {
    m.step(s.pos);
    std::visit(
        Overloaded{[&](const imp::Skip&) {},
                   [&](const imp::Decl& d) {
                     if (d.is_mem)
                       m.bind(d.name.s, MemV{});
                     else
                       m.bind(d.name.s, Scalar::zero(d.type));
                   },
                   [&](const imp::Assign& a) {
                     // `m <- m2` copies a label; anything else is a scalar expression.
                     if (const auto* sv = std::get_if<SVar>(&a.value->node)) {
                       const Val& src = m.lookup(sv->name, a.value->pos);
                       if (std::holds_alternative<MemV>(src)) {
                         assign(a.name, src);
                         return;
                       }
                     }
                     Val& dst = var(a.name);
                     Scalar v = m.eval(*a.value);
                     if (const auto* old = std::get_if<Scalar>(&dst); old && old->t != v.t)
                       throw RunError("elemtype", s.pos,
                                      std::string("assigning a ") + scalar_type_name(v.t) +
                                          " to '" + a.name.s + "' of type " +
                                          scalar_type_name(old->t));
                     dst = v;
                   },
                   [&](const imp::Alloc& a) {
                     int64_t n = m.eval_size(*a.size, "an allocation size");
                     assign(a.mem, MemV{m.new_block(a.mem.s, n, s.pos)});
                   },
                   [&](const imp::Read& r) {
                     const BlockP& b = block(r.mem);
                     int64_t off = m.eval_address(*r.index, "a memory index");
                     Val& dst = var(r.dst);
                     const auto* old = std::get_if<Scalar>(&dst);
                     if (!old)
                       throw RunError("elemtype", s.pos, "'" + r.dst.s + "' is not a scalar");
                     dst = m.read(*b, off, old->t, s.pos);
                   },
                   [&](const imp::Write& w) {
                     const BlockP& b = block(w.mem);
                     int64_t off = m.eval_address(*w.index, "a memory index");
                     m.write(*b, off, m.eval(*w.value), s.pos);
                   },
                   [&](const imp::If& i) {
                     run(as_bool(m.eval(*i.cond), i.cond->pos) ? i.then_block : i.else_block);
                   },
                   [&](const imp::Assert& a) {
                     if (!as_bool(m.eval(*a.cond), a.cond->pos))
                       throw RunError(a.kind, s.pos,
                                      (a.kind == "assume" ? std::string("the assumption does "
                                                                        "not hold")
                                                          : std::string("an index outside its "
                                                                        "array")) +
                                          " (IMP assert at " + std::to_string(s.pos.line) + ":" +
                                          std::to_string(s.pos.col) + ")");
                   },
                   [&](const imp::Loop& l) {
                     int64_t n = m.eval_int(*l.bound, "a loop bound");
                     if (n > INT32_MAX)
                       throw RunError("resource", l.bound->pos,
                                      "a loop of " + std::to_string(n) + " iterations");
                     if (l.parallel) m.push_tracker(s.pos);
                     for (int64_t i = 0; i < n; ++i) {
                       m.step(s.pos);
                       auto saved = l.parallel ? m.env : decltype(m.env){};
                       size_t mark = m.env.size();
                       if (l.parallel) m.trackers.back().iter = i;
                       m.bind(l.iter.s, Scalar::of_int(ScalarType::I64, i));
                       run(l.body);
                       if (l.parallel)
                         m.env = std::move(saved);
                       else
                         m.env.resize(mark);
                     }
                     if (l.parallel) m.pop_tracker();
                   }},
        s.node);
  }

  const BlockP& block(const Name& n) {
    Val& v = var(n);
    auto* mv = std::get_if<MemV>(&v);
    if (!mv) throw RunError("elemtype", n.pos, "'" + n.s + "' is not a memory block");
    if (!mv->block) throw RunError("bounds", n.pos, "'" + n.s + "' has not been allocated");
    return mv->block;
  }
};

} // namespace funmem::machine

namespace funmem {

using namespace machine;

RunResult run_imp(const imp::Program& p, const Inputs& in, const Limits& lim) {
  RunResult res;
  Machine m(Semantics::Heap, lim);
  ImpMachine im(m);
  try {
    for (const imp::Param& prm : p.params) {
      auto it = in.find(prm.name.s);
      if (it == in.end()) throw RunError("size", prm.name.pos, "no input for '" + prm.name.s + "'");
      if (!prm.is_mem) {
        m.bind(prm.name.s, it->second.scalar);
        continue;
      }
      const Data& d = it->second;
      BlockP b = m.new_block(prm.name.s, static_cast<int64_t>(d.elems.size()), prm.name.pos);
      for (size_t k = 0; k < d.elems.size(); ++k)
        m.write(*b, static_cast<int64_t>(k), d.elems[k], prm.name.pos);
      m.bind(prm.name.s, MemV{b});
    }
    im.run(p.body);
    for (size_t ri = 0; ri < p.results.size(); ++ri) {
      const Name& r = p.results[ri];
      const Val& v = m.lookup(r);
      Data d;
      const imp::ResultArray* arr =
          ri < p.result_arrays.size() && p.result_arrays[ri] ? &*p.result_arrays[ri] : nullptr;
      if (const auto* s = std::get_if<Scalar>(&v)) {
        d.scalar = *s;
      } else if (arr) {
        // The array the block holds: its cells, of its type, read where the source reads it.
        const BlockP& b = im.block(r);
        int64_t n = m.eval_size(*arr->count, "a result array's size");
        d.is_array = true;
        d.elem = arr->elem;
        d.shape = {n};
        for (int64_t c = 0; c < n; ++c)
          d.elems.push_back(m.read(*b, c, d.elem, arr->array.pos));
      } else {
        const BlockP& b = im.block(r);
        d.is_array = true;
        d.elem = ScalarType::I64;
        for (size_t k = 0; k < b->cells.size(); ++k)
          if (b->set[k]) {
            d.elem = b->cells[k].t;
            break;
          }
        d.shape = {static_cast<int64_t>(b->cells.size())};
        for (size_t k = 0; k < b->cells.size(); ++k)
          d.elems.push_back(m.read(*b, static_cast<int64_t>(k), d.elem, r.pos));
      }
      res.results.push_back(std::move(d));
    }
  } catch (const RunError& e) {
    res.error = e;
  }
  res.races = m.races;
  res.stats = m.stats;
  return res;
}

} // namespace funmem
