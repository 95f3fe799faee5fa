// Comprehensive parametric kernels of multi-versioned nests (docs/comprehensive.md): the
// variants of a nest `kernel i < n do (pure prefix) kernel j < m do ...` over blocks of
// B0 x B1 threads (blockDim.y x blockDim.x) and s inner iterations per thread, with and
// without two-dimensional shared-memory tiles, which take the place of the flattened
// version under the tuning tree.
#include "codegen/gen.h"
#include "ir/convert.h"

namespace funmem::codegen {

namespace {

void reads_in(const imp::Block& b, std::vector<const imp::Read*>& out) {
  for (const imp::Stmt& s : b) {
    if (const auto* i = std::get_if<imp::If>(&s.node)) {
      reads_in(i->then_block, out);
      reads_in(i->else_block, out);
    } else if (const auto* l = std::get_if<imp::Loop>(&s.node)) {
      reads_in(l->body, out);
    } else if (const auto* r = std::get_if<imp::Read>(&s.node)) {
      out.push_back(r);
    }
  }
}

/// A read m[sum of a_k * iters[k] + base + offset]: coefficients and base invariant in
/// the nest (as text), `offset` a constant.
struct AffineRead2 {
  const imp::Read* read;
  std::vector<std::string> coef;
  std::string base;
  int64_t offset;
};

std::optional<AffineRead2> affine_in(const imp::Read& r, const std::vector<std::string>& iters,
                                     const std::set<std::string>& assigned) {
  std::optional<Poly> p = to_poly(*r.index);
  if (!p) return std::nullopt;
  auto is_iter = [&](const std::string& v) {
    return std::find(iters.begin(), iters.end(), v) != iters.end();
  };
  for (const std::string& v : p->free_vars())
    if (!is_iter(v) && assigned.count(v)) return std::nullopt;
  std::map<std::string, Poly> zero;
  for (const std::string& v : iters)
    zero[v] = 0;
  const Poly p0 = p->substitute(zero);
  Poly sum = p0;
  AffineRead2 out{&r, {}, "", 0};
  for (const std::string& v : iters) {
    std::map<std::string, Poly> at = zero;
    at[v] = 1;
    const Poly a = p->substitute(at) - p0;
    for (const std::string& w : a.free_vars())
      if (is_iter(w)) return std::nullopt;
    sum = sum + a * Poly::var(v);
    out.coef.push_back(a.to_string());
  }
  if (!(*p == sum)) return std::nullopt;
  std::map<std::string, Poly> none;
  for (const std::string& v : p0.free_vars())
    none[v] = 0;
  std::optional<int64_t> c = p0.substitute(none).constant();
  if (!c) return std::nullopt;
  out.base = (p0 - Poly(*c)).to_string();
  out.offset = *c;
  return out;
}

/// The names `b` declares (anywhere), its loops' counters included.
void declared_in(const imp::Block& b, std::set<std::string>& out) {
  for (const imp::Stmt& s : b) {
    if (const auto* d = std::get_if<imp::Decl>(&s.node)) out.insert(d->name.s);
    if (const auto* i = std::get_if<imp::If>(&s.node)) {
      declared_in(i->then_block, out);
      declared_in(i->else_block, out);
    }
    if (const auto* l = std::get_if<imp::Loop>(&s.node)) {
      out.insert(l->iter.s);
      declared_in(l->body, out);
    }
  }
}

/// Whether `b` holds a loop or an allocation (anywhere) or a write (`writes`).
bool holds(const imp::Block& b, bool writes) {
  for (const imp::Stmt& s : b) {
    if (std::holds_alternative<imp::Loop>(s.node) || std::holds_alternative<imp::Alloc>(s.node) ||
        (writes && std::holds_alternative<imp::Write>(s.node)))
      return true;
    if (const auto* i = std::get_if<imp::If>(&s.node))
      if (holds(i->then_block, writes) || holds(i->else_block, writes)) return true;
  }
  return false;
}

} // namespace

std::vector<Gen::TileInfo> Gen::find_tiles2(const imp::Loop& l, const Nest& nest) const {
  const std::string i = l.iter.s, j = nest.inner->iter.s;
  std::set<std::string> assigned, inner_assigned, written;
  assigned_in(l.body, assigned);
  assigned_in(nest.inner->body, inner_assigned);
  written_mems(l.body, written);
  // A tile's cells are computed from the iterators: neither may change its value.
  for (const imp::Stmt* s : nest.pre) {
    if (const auto* d = std::get_if<imp::Decl>(&s->node)) inner_assigned.insert(d->name.s);
    if (const auto* a = std::get_if<imp::Assign>(&s->node)) inner_assigned.insert(a->name.s);
    if (const auto* r = std::get_if<imp::Read>(&s->node)) inner_assigned.insert(r->dst.s);
  }
  if (inner_assigned.count(i) || inner_assigned.count(j)) return {};
  std::vector<const imp::Read*> reads;
  reads_in(nest.inner->body, reads);
  std::map<std::string, std::vector<AffineRead2>> groups;
  for (const imp::Read* r : reads) {
    if (written.count(r->mem.s)) continue;
    if (auto a = affine_in(*r, {i, j}, assigned))
      groups[r->mem.s + "|" + a->coef[0] + "|" + a->coef[1] + "|" + a->base].push_back(*a);
  }
  // One tile per block, the group with the most reads: a transposed read (coefficient 1
  // on the outer iterator, not on the inner one: the tile makes its loads coalesced) or
  // reads reused along a row (coefficient 1 on the inner iterator, two offsets or more).
  std::map<std::string, std::vector<AffineRead2>> best;
  for (auto& [key, g] : groups)
    if (best[g[0].read->mem.s].size() < g.size()) best[g[0].read->mem.s] = g;
  std::vector<TileInfo> out;
  for (auto& [mem, g] : best) {
    auto [lo, hi] = std::minmax_element(
        g.begin(), g.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
    int64_t span = 0;
    if (__builtin_sub_overflow(hi->offset, lo->offset, &span) || span > 1024) continue;
    const std::string& ai = g[0].coef[0];
    const std::string& aj = g[0].coef[1];
    int unit = -1;
    if (ai == "1" && aj != "1" && aj != "0")
      unit = 0;
    else if (aj == "1" && ai != "0" && span > 0)
      unit = 1;
    if (unit < 0) continue;
    TileInfo t;
    t.tile = CudaTile{mem, 1, span, static_cast<int>(g.size()), 2, unit};
    t.first = lo->read;
    for (const AffineRead2& r : g) {
      t.reads.push_back(r.read);
      t.shift.push_back(r.offset - lo->offset);
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::string Gen::tile_loads2(const std::vector<TileInfo>& tiles, const std::string& copies,
                             const std::string& i, const std::string& j, const std::string& q) {
  std::string t =
      "      // Every thread loads its share of the tiles; the barrier ends the loads.\n";
  t += "      FM_THREADS {\n        const int64_t fm_t = FM_TID2, fm_bt = fm_B0 * fm_B1;\n";
  const std::string copied = indented(copies, "        ");
  for (size_t k = 0; k < tiles.size(); ++k) {
    const CudaTile& tile = tiles[k].tile;
    if (tile.strip == CudaTile::Strip::State) continue;
    const std::string K = std::to_string(k), m = "p_" + cname(tile.mem);
    // Cell x of the tile, fastest along dimension `unit`, is element (x0, x1) of the tile,
    // at which the first read's index is evaluated: (i, j) = (fm_i0 + x0, fm_j0 + x1);
    // a strip's rows, (i, q) = (fm_i0 + x0, fm_q0 + x1); its columns, (q, j).
    const bool rows_fastest = tile.unit == 0;
    const std::string x0 = rows_fastest ? "fm_x % fm_e0" + K : "fm_x / fm_e1" + K;
    const std::string x1 = rows_fastest ? "fm_x / fm_e0" + K : "fm_x % fm_e1" + K;
    const bool rows = tile.strip == CudaTile::Strip::Rows;
    const bool cols = tile.strip == CudaTile::Strip::Columns;
    const std::string at_i = cols ? "fm_i0" : "fm_i0 + " + x0;
    const std::string at_j = rows ? "fm_j0" : "fm_j0 + " + x1;
    t += "        for (int64_t fm_q = 0; fm_q < (fm_len" + K + " + fm_bt - 1) / fm_bt; ++fm_q) {\n";
    t += "          const int64_t fm_x = fm_q * fm_bt + fm_t;\n";
    t += "          if (fm_x < fm_len" + K + ") {\n" + copied;
    t += "            const int64_t " + cname(i) + " = " + at_i + ";\n";
    t += "            const int64_t " + cname(j) + " = " + at_j + ";\n";
    if (rows || cols)
      t += "            const int64_t " + cname(q) + " = fm_q0 + " + (rows ? x1 : x0) + ";\n";
    t += "            const int64_t fm_g = " + address(*tiles[k].first->index).first + ";\n";
    t += "            if (fm_g >= 0 && fm_g < " + m + ".n)\n";
    t += "              fm_smem[fm_at" + K + " + fm_x] = fm_ld<fm_cell>(" + m + ", fm_g, 0);\n";
    t += "          }\n        }\n";
  }
  t += "      }\n      FM_SYNC();\n";
  return t;
}

std::string Gen::par2_kernel_fn(const std::string& name, const std::string& sig, Pos pos,
                                const std::string& copies,
                                const std::vector<std::pair<std::string, VarInfo>>& captured,
                                const imp::Loop& l, const Nest& nest,
                                const std::vector<TileInfo>& tiles, CudaKernelInfo& info,
                                const CudaVariant& v) {
  const bool was_device =
      enter_function(info, name, name.substr(info.name.size() + 1), l, captured);
  info.functions.back().parametric = true;
  info.functions.back().block_dims = 2;
  std::string loads;
  if (v.cache) {
    frames_.emplace_back();
    declare(nest.inner->iter.s, VarInfo{false, ScalarType::I64});
    force_unchecked_ = true;
    loads = tile_loads2(tiles, copies, l.iter.s, nest.inner->iter.s, "");
    force_unchecked_ = false;
    frames_.pop_back();
    for (size_t k = 0; k < tiles.size(); ++k) {
      const std::string K = std::to_string(k);
      for (size_t r = 0; r < tiles[k].reads.size(); ++r) {
        const std::string d = std::to_string(tiles[k].shift[r]);
        tile_reads_[tiles[k].reads[r]] =
            TileRead{k, tiles[k].tile.unit == 0
                            ? "(fm_p - fm_j0) * fm_e0" + K + " + (fm_o - fm_i0 + " + d + ")"
                            : "(fm_o - fm_i0) * fm_e1" + K + " + (fm_p - fm_j0 + " + d + ")"};
      }
    }
  }
  const std::string compute = nest_phase(l, nest, copies, [&](std::string& t, int ind) {
    // The inner bound, checked in every iteration as the sequential version checks it.
    t += pad(ind) + "(void)fm_bound(" + exp(*nest.inner->bound).first + ", " +
         site("resource", nest.inner->bound->pos, "a loop of more than 2^31 - 1 iterations") +
         ");\n";
    block(nest.inner->body, t, ind);
  });
  tile_reads_.clear();
  leave_function(was_device);
  std::string t =
      nest_kernel_head(name, sig, pos, v, v.cache ? ", inputs in shared-memory tiles" : "",
                       v.cache ? tile_decls(tiles, l, true) : "");
  t += loads + compute;
  if (v.cache) t += "      FM_SYNC(); // the tiles are reloaded for the next chunk\n";
  t += "    }\n  }\n}\n\n";
  return t;
}

std::string Gen::nest_kernel_head(const std::string& name, const std::string& sig, Pos pos,
                                  const CudaVariant& v, const std::string& what,
                                  const std::string& decls) const {
  std::string t =
      "// The kernel at " + opt_.source_file + ":" + where(pos) +
      ": blocks of B0 x B1 = blockDim.y x blockDim.x threads, s = fm_s inner iterations each" +
      what + (v.register_cap ? ", at most " + std::to_string(v.register_cap) + " registers" : "") +
      ".\n";
  t += "__global__ void " +
       (v.register_cap ? "FM_MAXNREG(" + std::to_string(v.register_cap) + ") " : std::string()) +
       name + "(" + sig + ") {\n";
  if (v.cache) t += "  FM_SHARED_CELLS;\n";
  t += "  const int64_t fm_B0 = blockDim.y, fm_B1 = blockDim.x, fm_per = fm_B1 * fm_s;\n";
  t += decls;
  t += "  const int64_t fm_rows = (fm_n + fm_B0 - 1) / fm_B0, fm_cols = (fm_m + fm_per - 1) / "
       "fm_per;\n";
  t += "  for (int64_t fm_ci = blockIdx.y; fm_ci < fm_rows; fm_ci += gridDim.y) {\n";
  t += "    for (int64_t fm_cj = blockIdx.x; fm_cj < fm_cols; fm_cj += gridDim.x) {\n";
  t += "      const int64_t fm_i0 = fm_ci * fm_B0, fm_j0 = fm_cj * fm_per;\n";
  return t;
}

void Gen::parametric_variants2(const imp::Loop& l, const Nest& nest, Pos pos,
                               const std::string& sig, const std::string& copies,
                               const std::vector<std::pair<std::string, VarInfo>>& captured,
                               CudaKernelInfo& k) {
  k.block_dims = 2;
  std::optional<Strip> strip = find_strip(l, nest);
  std::vector<TileInfo> tiles = strip ? strip->tiles : find_tiles2(l, nest);
  for (const TileInfo& t : tiles)
    k.tiles.push_back(t.tile);
  const std::string psig = "int64_t fm_n, int64_t fm_m, int64_t fm_s" + sig;
  emit_variants(k, !tiles.empty(), "b2", [&](const CudaVariant& v) {
    return v.cache && strip
               ? strip_kernel_fn(v.function, psig, pos, copies, captured, l, nest, *strip, k, v)
               : par2_kernel_fn(v.function, psig, pos, copies, captured, l, nest, tiles, k, v);
  });
}

std::optional<Gen::Strip> Gen::find_strip(const imp::Loop& l, const Nest& nest) const {
  const imp::Block& body = nest.inner->body;
  Strip st;
  for (size_t k = 0; k < body.size(); ++k)
    if (const auto* lp = std::get_if<imp::Loop>(&body[k].node)) {
      if (st.loop || lp->parallel) return std::nullopt;
      st.loop = lp;
      st.at = k;
    }
  if (!st.loop) return std::nullopt;
  // Before the loop: scalar work, whose declarations are the state; after it, no loop.
  for (size_t k = 0; k < st.at; ++k) {
    const imp::Stmt& s = body[k];
    if (const auto* d = std::get_if<imp::Decl>(&s.node)) {
      if (d->is_mem) return std::nullopt;
      st.state.emplace_back(d->name.s, VarInfo{false, d->type});
    } else if (!std::holds_alternative<imp::Assign>(s.node) &&
               !std::holds_alternative<imp::Read>(s.node) &&
               !std::holds_alternative<imp::Assert>(s.node) &&
               !std::holds_alternative<imp::Skip>(s.node)) {
      return std::nullopt;
    }
  }
  const imp::Block post(body.begin() + static_cast<std::ptrdiff_t>(st.at) + 1, body.end());
  if (holds(post, false) || holds(st.loop->body, true)) return std::nullopt;
  const std::string i = l.iter.s, j = nest.inner->iter.s, q = st.loop->iter.s;
  std::set<std::string> assigned, inner_assigned, loop_assigned, written;
  assigned_in(l.body, assigned);
  assigned_in(body, inner_assigned);
  assigned_in(st.loop->body, loop_assigned);
  written_mems(l.body, written);
  // The phases run the nest's prefix again: the inner body may change only its own names.
  std::set<std::string> own;
  declared_in(body, own);
  for (const std::string& n : inner_assigned)
    if (!own.count(n)) return std::nullopt;
  for (const imp::Stmt* s : nest.pre)
    if (const auto* d = std::get_if<imp::Decl>(&s->node)) inner_assigned.insert(d->name.s);
  if (inner_assigned.count(i) || inner_assigned.count(j) || loop_assigned.count(q) ||
      std::any_of(st.state.begin(), st.state.end(), [&](const auto& v) { return v.first == q; }))
    return std::nullopt;
  // The state: what the loop and the rest use of the names declared before the loop.
  FreeNames used;
  used.loop_body(*st.loop);
  used.block(post);
  const std::set<std::string> live(used.order.begin(), used.order.end());
  std::erase_if(st.state, [&](const auto& v) { return !live.count(v.first); });
  // The loop's bound is invariant, and no block the nest writes is read in it.
  std::optional<Poly> bound = to_poly(*st.loop->bound);
  if (!bound) return std::nullopt;
  for (const std::string& v : bound->free_vars())
    if (assigned.count(v)) return std::nullopt;
  std::vector<const imp::Read*> all, reads;
  reads_in(l.body, all);
  for (const imp::Read* r : all)
    if (written.count(r->mem.s)) return std::nullopt;
  reads_in(st.loop->body, reads);
  // A read whose index does not depend on j (on i) is shared by a block's row (column)
  // of threads: a strip of it over q is a tile.
  std::map<std::string, std::vector<AffineRead2>> groups;
  for (const imp::Read* r : reads)
    if (auto a = affine_in(*r, {i, j, q}, assigned))
      groups[r->mem.s + "|" + a->coef[0] + "|" + a->coef[1] + "|" + a->coef[2] + "|" + a->base +
             "|" + std::to_string(a->offset)]
          .push_back(*a);
  for (auto& [key, g] : groups) {
    const std::string &ai = g[0].coef[0], &aj = g[0].coef[1], &aq = g[0].coef[2];
    if (aq == "0") continue;
    TileInfo t;
    t.tile = CudaTile{g[0].read->mem.s, 1, 0, static_cast<int>(g.size()), 2, 1};
    if (aj == "0" && ai != "0" && (aq == "1" || ai == "1")) {
      t.tile.strip = CudaTile::Strip::Rows;
      t.tile.unit = aq == "1" ? 1 : 0;
    } else if (ai == "0" && aj != "0" && (aj == "1" || aq == "1")) {
      t.tile.strip = CudaTile::Strip::Columns;
      t.tile.unit = aj == "1" ? 1 : 0;
    } else {
      continue;
    }
    t.first = g[0].read;
    for (const AffineRead2& r : g) {
      t.reads.push_back(r.read);
      t.shift.push_back(0);
    }
    st.tiles.push_back(std::move(t));
  }
  if (st.tiles.empty()) return std::nullopt;
  if (!st.state.empty()) {
    TileInfo t;
    t.tile = CudaTile{"", 1, static_cast<int64_t>(st.state.size()), 0, 2, 1};
    t.tile.strip = CudaTile::Strip::State;
    st.tiles.push_back(std::move(t));
  }
  return st;
}

std::string Gen::nest_phase(const imp::Loop& l, const Nest& nest, const std::string& copies,
                            const std::function<void(std::string&, int)>& inner) {
  std::string t = "      FM_THREADS {\n        const int64_t fm_o = fm_i0 + FM_TY;\n";
  t += "        for (int64_t fm_k = 0; fm_k < fm_s; ++fm_k) {\n";
  t += "          const int64_t fm_p = fm_j0 + fm_k * fm_B1 + FM_TX;\n";
  t += "          if (fm_o < fm_n && fm_p < fm_m) {\n";
  t += "          // Each iteration starts from the values before the kernel.\n";
  t += indented(copies, "        ");
  t += "            const int64_t " + cname(l.iter.s) + " = fm_o;\n            {\n";
  frames_.emplace_back();
  for (const imp::Stmt* s : nest.pre)
    stmt(*s, t, 8);
  t += pad(8) + "{ const int64_t " + cname(nest.inner->iter.s) + " = fm_p;\n";
  frames_.emplace_back();
  declare(nest.inner->iter.s, VarInfo{false, ScalarType::I64});
  imp_loops_.emplace_back(nest.inner->iter.s, nest.inner->bound);
  inner(t, 9);
  imp_loops_.pop_back();
  frames_.pop_back();
  t += pad(8) + "}\n";
  frames_.pop_back();
  t += "            }\n          }\n        }\n      }\n";
  return t;
}

std::string Gen::strip_kernel_fn(const std::string& name, const std::string& sig, Pos pos,
                                 const std::string& copies,
                                 const std::vector<std::pair<std::string, VarInfo>>& captured,
                                 const imp::Loop& l, const Nest& nest, const Strip& strip,
                                 CudaKernelInfo& info, const CudaVariant& v) {
  const bool was_device =
      enter_function(info, name, name.substr(info.name.size() + 1), l, captured);
  info.functions.back().parametric = true;
  info.functions.back().block_dims = 2;
  const imp::Loop& loop = *strip.loop;
  const imp::Block& body = nest.inner->body;
  const std::string q = cname(loop.iter.s), S = std::to_string(strip.tiles.size() - 1);
  const std::string nv = std::to_string(strip.state.size());
  // Iteration (fm_k, thread)'s state cells.
  auto cell = [&](size_t k) {
    return "fm_at" + S + " + ((fm_k * fm_B0 + FM_TY) * fm_B1 + FM_TX) * " + nv + " + " +
           std::to_string(k);
  };
  auto save = [&](std::string& t, int ind) {
    for (size_t k = 0; k < strip.state.size(); ++k)
      t += pad(ind) + "fm_sst<" + c_type(strip.state[k].second.t) + ">(fm_smem, " + cell(k) + ", " +
           cname(strip.state[k].first) + ");\n";
  };
  auto restore = [&](std::string& t, int ind) {
    for (size_t k = 0; k < strip.state.size(); ++k) {
      const auto& [n, vi] = strip.state[k];
      declare(n, vi);
      t += pad(ind) + c_type(vi.t) + " " + cname(n) + " = fm_sld<" + c_type(vi.t) + ">(fm_smem, " +
           cell(k) + ");\n";
    }
  };
  // The loop's bound at the chunk (unchecked: the first phase checks it), the loads of a
  // strip, and the tiles' cells at the reads.
  force_unchecked_ = true;
  const std::string D = exp(*loop.bound).first;
  frames_.emplace_back();
  declare(nest.inner->iter.s, VarInfo{false, ScalarType::I64});
  declare(loop.iter.s, VarInfo{false, ScalarType::I64});
  const std::string loads =
      tile_loads2(strip.tiles, copies, l.iter.s, nest.inner->iter.s, loop.iter.s);
  frames_.pop_back();
  force_unchecked_ = false;
  for (size_t k = 0; k + (strip.state.empty() ? 0 : 1) < strip.tiles.size(); ++k) {
    const CudaTile& tile = strip.tiles[k].tile;
    const std::string K = std::to_string(k);
    const std::string x =
        tile.strip == CudaTile::Strip::Rows ? "(fm_o - fm_i0)" : "(" + q + " - fm_q0)";
    const std::string y =
        tile.strip == CudaTile::Strip::Rows ? "(" + q + " - fm_q0)" : "(fm_p - fm_j0)";
    for (const imp::Read* r : strip.tiles[k].reads)
      tile_reads_[r] = TileRead{k, tile.unit == 1 ? x + " * fm_e1" + K + " + " + y
                                                  : y + " * fm_e0" + K + " + " + x};
  }
  const std::string first = nest_phase(l, nest, copies, [&](std::string& t, int ind) {
    for (size_t k = 0; k < strip.at; ++k)
      stmt(body[k], t, ind);
    t += pad(ind) + "(void)fm_bound(" + exp(*loop.bound).first + ", " +
         site("resource", loop.bound->pos, "a loop of more than 2^31 - 1 iterations") + ");\n";
    save(t, ind);
  });
  const std::string compute = nest_phase(l, nest, copies, [&](std::string& t, int ind) {
    restore(t, ind);
    t += pad(ind) + "for (int64_t " + q +
         " = fm_q0, fm_qe = fm_min<int64_t>(fm_q0 + fm_W, fm_D); " + q + " < fm_qe; ++" + q +
         ") {\n";
    frames_.emplace_back();
    declare(loop.iter.s, VarInfo{false, ScalarType::I64});
    imp_loops_.emplace_back(loop.iter.s, loop.bound);
    block(loop.body, t, ind + 1);
    imp_loops_.pop_back();
    frames_.pop_back();
    t += pad(ind) + "}\n";
    save(t, ind);
  });
  tile_reads_.clear();
  const std::string last = nest_phase(l, nest, copies, [&](std::string& t, int ind) {
    restore(t, ind);
    for (size_t k = strip.at + 1; k < body.size(); ++k)
      stmt(body[k], t, ind);
  });
  leave_function(was_device);

  std::string t = nest_kernel_head(name, sig, pos, v,
                                   ", the loop over " + loop.iter.s +
                                       " in strips of B0 with its reads in shared-memory tiles",
                                   "  const int64_t fm_W = fm_B0; // a strip's values of " +
                                       loop.iter.s + "\n" + tile_decls(strip.tiles, l, true));
  t += "      int64_t fm_D = 0;\n      {\n";
  t += indented(copies, "    ");
  t += "        fm_D = " + D + ";\n      }\n";
  t += "      // Each iteration's work before the loop over " + loop.iter.s +
       ", its state kept in shared memory.\n";
  t += first + "      FM_SYNC();\n";
  t += "      for (int64_t fm_q0 = 0; fm_q0 < fm_D; fm_q0 += fm_W) {\n";
  t += loads + compute + "      FM_SYNC();\n      }\n";
  t += "      // The rest of each iteration.\n" + last + "      FM_SYNC();\n";
  t += "    }\n  }\n}\n\n";
  return t;
}

} // namespace funmem::codegen
