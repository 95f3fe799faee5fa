// The entry point of the FUN value and FUNMEM heap interpreters (see interp.h).
#include "interp/machine.h"

namespace funmem {

using namespace machine;

namespace {

/// Binds the parameters: scalars first (sizes of array parameters and of memory
/// blocks), then each memory block, holding the arrays placed in it, then the arrays.
void bind_parameters(Machine& m, const Def& def, const Inputs& in) {
  for (const Binding& b : def.params) {
    if (!b.type || b.type->kind != Type::Kind::Scalar) continue;
    auto it = in.find(b.name.s);
    if (it == in.end()) throw RunError("size", b.name.pos, "no input for '" + b.name.s + "'");
    m.bind(b.name.s, it->second.is_mem ? Scalar::of_int(ScalarType::I64, 0) : it->second.scalar);
  }
  // Memory parameters hold, row-major, the arrays placed in them.
  for (const Binding& b : def.params) {
    if (!b.type || b.type->kind != Type::Kind::Mem) continue;
    int64_t size = 0;
    for (const Binding& a : def.params)
      if (a.type && a.type->ann && a.type->ann->mem.s == b.name.s) {
        size = std::max(size, m.parameter_cells(a, b.name.s));
      }
    m.bind(b.name.s, MemV{m.new_block(b.name.s, size, b.name.pos)});
  }
  for (const Binding& b : def.params) {
    if (!b.type || b.type->kind != Type::Kind::Array) continue;
    auto it = in.find(b.name.s);
    if (it == in.end() || !it->second.is_array)
      throw RunError("size", b.name.pos, "no array input for '" + b.name.s + "'");
    const Data& d = it->second;
    ArrV a = m.destination(b, d.shape, d.elem, b.name.pos);
    m.each(a.lay, [&](int64_t t, int64_t off) {
      m.write(*a.block, off, d.elems[static_cast<size_t>(t)], b.name.pos);
    });
    a.since = m.clock;
    m.bind(b.name.s, a);
  }
}

} // namespace

RunResult run_program(const Program& p, Semantics s, const Inputs& in, const Limits& lim) {
  RunResult res;
  Machine m(s, lim);
  m.auditing = lim.audit && s == Semantics::Heap;
  const Def& def = p.def;
  if (s == Semantics::Value) m.live.emplace(def);
  try {
    bind_parameters(m, def, in);
    Vals out = m.run_body(def.body);
    for (size_t k = 0; k < out.size(); ++k)
      res.results.push_back(m.result(out[k], def.body.results[k].pos));
  } catch (const RunError& e) {
    res.error = e;
  }
  res.races = m.races;
  res.stats = m.stats;
  return res;
}

Inputs imp_inputs(const Def& def, const Inputs& in, const Limits& lim) {
  // The blocks as the heap semantics fills them: one placement rule for both.
  Machine m(Semantics::Heap, lim);
  bind_parameters(m, def, in);
  Inputs out;
  for (const auto& [n, d] : in)
    if (!d.is_array && !d.is_mem) out[n] = d;
  for (const Binding& b : def.params) {
    if (!b.type || b.type->kind != Type::Kind::Mem) continue;
    Data block;
    block.is_array = true;
    for (const Binding& a : def.params)
      if (a.type && a.type->ann && a.type->ann->mem.s == b.name.s) block.elem = a.type->elem;
    const BlockP& cells = std::get<MemV>(m.lookup(b.name)).block;
    for (size_t k = 0; k < cells->cells.size(); ++k)
      block.elems.push_back(cells->set[k] ? cells->cells[k] : Scalar::zero(block.elem));
    block.shape = {static_cast<int64_t>(block.elems.size())};
    out[b.name.s] = std::move(block);
  }
  return out;
}

} // namespace funmem
