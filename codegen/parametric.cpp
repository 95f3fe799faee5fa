// Comprehensive parametric kernels (docs/comprehensive.md): the variants of an outermost
// kernel over a run-time block size B (blockDim.x) and thread granularity s (fm_s), with
// and without shared-memory tiles of the inputs its iterations reuse, and the host
// dispatcher that launches the leaf of the case discussion whose constraints hold.
#include "codegen/gen.h"
#include "ir/convert.h"

namespace funmem::codegen {

namespace {

/// A read `m[e]` whose index is `stride * i + base + offset`: `base` invariant in the
/// kernel, `offset` a constant.
struct AffineRead {
  const imp::Read* read;
  std::string mem;
  int64_t stride;
  std::string base; // the invariant part without its constant term, as text
  int64_t offset;
};

void affine_reads(const imp::Block& b, const std::string& iter,
                  const std::set<std::string>& assigned, const std::set<std::string>& written,
                  std::vector<AffineRead>& out) {
  for (const imp::Stmt& s : b) {
    if (const auto* i = std::get_if<imp::If>(&s.node)) {
      affine_reads(i->then_block, iter, assigned, written, out);
      affine_reads(i->else_block, iter, assigned, written, out);
    } else if (const auto* l = std::get_if<imp::Loop>(&s.node)) {
      affine_reads(l->body, iter, assigned, written, out);
    } else if (const auto* r = std::get_if<imp::Read>(&s.node)) {
      if (written.count(r->mem.s)) continue;
      std::optional<Poly> p = to_poly(*r->index);
      if (!p) continue;
      bool invariant = true;
      for (const std::string& v : p->free_vars())
        if (v != iter && assigned.count(v)) invariant = false;
      if (!invariant) continue;
      const Poly p0 = p->substitute({{iter, 0}});
      std::optional<int64_t> a = (p->substitute({{iter, 1}}) - p0).constant();
      if (!a || *a < 0 || *a > 8 || !(*p == Poly(*a) * Poly::var(iter) + p0)) continue;
      std::map<std::string, Poly> zero;
      for (const std::string& v : p0.free_vars())
        zero[v] = 0;
      std::optional<int64_t> c = p0.substitute(zero).constant();
      if (!c) continue;
      out.push_back({r, r->mem.s, *a, (p0 - Poly(*c)).to_string(), *c});
    }
  }
}

} // namespace

std::vector<Gen::TileInfo> Gen::find_tiles(const imp::Loop& l) {
  std::set<std::string> assigned, written;
  assigned_in(l.body, assigned);
  written_mems(l.body, written);
  std::vector<AffineRead> reads;
  affine_reads(l.body, l.iter.s, assigned, written, reads);
  // One tile per block: the group (same stride and base) with the most reads, when its
  // reads reach at least two distinct offsets (else no iteration reuses another's cell).
  std::map<std::tuple<std::string, int64_t, std::string>, std::vector<const AffineRead*>> groups;
  for (const AffineRead& r : reads)
    groups[{r.mem, r.stride, r.base}].push_back(&r);
  std::map<std::string, std::vector<const AffineRead*>> best;
  for (auto& [key, g] : groups)
    if (best[std::get<0>(key)].size() < g.size()) best[std::get<0>(key)] = g;
  std::vector<TileInfo> out;
  for (auto& [mem, g] : best) {
    auto [lo, hi] = std::minmax_element(
        g.begin(), g.end(), [](const auto* a, const auto* b) { return a->offset < b->offset; });
    int64_t span = 0;
    if (__builtin_sub_overflow((*hi)->offset, (*lo)->offset, &span) || span == 0 || span > 1024)
      continue;
    TileInfo t;
    t.tile = CudaTile{mem, g[0]->stride, span, static_cast<int>(g.size())};
    t.first = (*lo)->read;
    for (const AffineRead* r : g)
      t.reads.push_back(r->read);
    out.push_back(std::move(t));
  }
  return out;
}

std::string Gen::par_kernel_fn(const std::string& name, const std::string& sig, Pos pos,
                               const std::string& copies,
                               const std::vector<std::pair<std::string, VarInfo>>& captured,
                               const imp::Loop& l, const std::vector<TileInfo>& tiles,
                               CudaKernelInfo& info, const CudaVariant& v) {
  const bool was_device =
      enter_function(info, name, name.substr(info.name.size() + 1), l, captured);
  info.functions.back().parametric = true;
  const std::string it = cname(l.iter.s);
  // Where each tile starts: its first read's index at the block's first iteration
  // (unchecked: a tile is only a cache, fm_ld_tile reads memory outside it).
  std::string starts;
  if (v.cache) {
    force_unchecked_ = true;
    for (size_t k = 0; k < tiles.size(); ++k)
      starts += "      fm_start" + std::to_string(k) + " = " +
                address(*tiles[k].first->index).first + ";\n";
    force_unchecked_ = false;
    for (size_t k = 0; k < tiles.size(); ++k)
      for (const imp::Read* r : tiles[k].reads)
        tile_reads_[r] = TileRead{k, ""};
  }
  std::string body;
  block(l.body, body, 7);
  tile_reads_.clear();
  leave_function(was_device);

  std::string t =
      "// The kernel at " + opt_.source_file + ":" + where(pos) +
      ": blocks of B = blockDim.x threads, s = fm_s iterations each" +
      (v.cache ? ", reused inputs in shared memory" : "") +
      (v.register_cap ? ", at most " + std::to_string(v.register_cap) + " registers" : "") + ".\n";
  t += "__global__ void " +
       (v.register_cap ? "FM_MAXNREG(" + std::to_string(v.register_cap) + ") " : std::string()) +
       name + "(" + sig + ") {\n";
  if (v.cache) t += "  FM_SHARED_CELLS;\n";
  t += "  const int64_t fm_B = blockDim.x, fm_per = fm_B * fm_s;\n";
  if (v.cache) t += tile_decls(tiles, l, false);
  t += "  const int64_t fm_chunks = (fm_n + fm_per - 1) / fm_per;\n";
  t += "  for (int64_t fm_c = blockIdx.x; fm_c < fm_chunks; fm_c += gridDim.x) {\n";
  t += "    const int64_t fm_o0 = fm_c * fm_per;\n";
  if (v.cache) {
    t += "    int64_t";
    for (size_t k = 0; k < tiles.size(); ++k)
      t += std::string(k ? "," : "") + " fm_start" + std::to_string(k) + " = 0";
    t += ";\n    {\n" + copies + "      const int64_t " + it + " = fm_o0;\n" + starts + "    }\n";
    t += "    // Every thread loads its share of the tiles; the barrier ends the loads.\n";
    t += "    FM_THREADS {\n      const int64_t fm_t = FM_TID;\n";
    for (size_t k = 0; k < tiles.size(); ++k) {
      const std::string K = std::to_string(k), m = "p_" + cname(tiles[k].tile.mem);
      // Round j: thread t loads cell j * B + t (the same rounds in every thread).
      t += "      for (int64_t fm_j = 0; fm_j < (fm_len" + K + " + fm_B - 1) / fm_B; ++fm_j) {\n";
      t += "        const int64_t fm_x = fm_j * fm_B + fm_t, fm_g = fm_start" + K + " + fm_x;\n";
      t += "        if (fm_x < fm_len" + K + " && fm_g >= 0 && fm_g < " + m + ".n)\n";
      t += "          fm_smem[fm_at" + K + " + fm_x] = fm_ld<fm_cell>(" + m + ", fm_g, 0);\n";
      t += "      }\n";
    }
    t += "    }\n    FM_SYNC();\n";
  }
  t += "    FM_THREADS {\n      const int64_t fm_t = FM_TID;\n";
  t += "      for (int64_t fm_k = 0; fm_k < fm_s; ++fm_k) {\n";
  t += "        const int64_t fm_o = fm_o0 + fm_k * fm_B + fm_t;\n";
  t += "        if (fm_o < fm_n) {\n";
  t += "        // Each iteration starts from the values before the kernel.\n";
  t += indented(copies, "      ");
  t += "          const int64_t " + it + " = fm_o;\n";
  t += "          {\n" + body + "          }\n";
  t += "        }\n      }\n    }\n";
  if (v.cache) t += "    FM_SYNC(); // the tiles are reloaded for the next chunk\n";
  t += "  }\n}\n\n";
  return t;
}

void Gen::emit_variants(CudaKernelInfo& k, bool tiled, const std::string& suffix,
                        const std::function<std::string(const CudaVariant&)>& make) {
  std::vector<int> caps = {0};
  caps.insert(caps.end(), opt_.register_caps.begin(), opt_.register_caps.end());
  for (bool cache : {false, true}) {
    if (cache && !tiled) continue;
    for (int cap : caps) {
      CudaVariant v{k.name + "_" + suffix + (cache ? "c" : "") +
                        (cap ? "_r" + std::to_string(cap) : std::string()),
                    cache, cap};
      kernels_text_ += make(v);
      k.variants.push_back(v);
    }
  }
}

std::string Gen::tile_decls(const std::vector<TileInfo>& tiles, const imp::Loop& l, bool two) {
  const Poly B = Poly::var(two ? "fm_B1" : "fm_B"), s = Poly::var("fm_s"), B0 = Poly::var("fm_B0");
  std::set<std::string> written;
  written_mems(l.body, written);
  std::string t, at = "0";
  for (size_t k = 0; k < tiles.size(); ++k) {
    const std::string K = std::to_string(k);
    if (two)
      t += "  const int64_t fm_e0" + K + " = " +
           tile_extent(tiles[k].tile, 0, B, s, B0).to_string() + ", fm_e1" + K + " = " +
           tile_extent(tiles[k].tile, 1, B, s, B0).to_string() + ";\n";
    t += "  const int64_t fm_len" + K + " = " + tile_cells(tiles[k].tile, B, s, B0).to_string() +
         ", fm_at" + K + " = " + at + ";\n";
    // A block the kernel also writes under another name is read from memory, not from
    // its tile (fm_ld_tile with an empty tile).
    std::string alias;
    for (const std::string& w : written)
      if (tiles[k].tile.strip != CudaTile::Strip::State)
        alias += "p_" + cname(tiles[k].tile.mem) + ".p == p_" + cname(w) + ".p || ";
    t += "  const int64_t fm_use" + K + " = " +
         (alias.empty() ? "" : "(" + alias.substr(0, alias.size() - 4) + ") ? 0 : ") + "fm_len" +
         K + ";\n";
    at = "fm_at" + K + " + fm_len" + K;
  }
  return t;
}

void Gen::parametric_variants(const imp::Loop& l, Pos pos, const std::string& sig,
                              const std::string& copies,
                              const std::vector<std::pair<std::string, VarInfo>>& captured,
                              CudaKernelInfo& k) {
  std::vector<TileInfo> tiles = find_tiles(l);
  for (const TileInfo& t : tiles)
    k.tiles.push_back(t.tile);
  emit_variants(k, !tiles.empty(), "g", [&](const CudaVariant& v) {
    return par_kernel_fn(v.function, "int64_t fm_n, int64_t fm_s" + sig, pos, copies, captured, l,
                         tiles, k, v);
  });
}

std::string Gen::parametric_launch(const CudaKernelInfo& k, const std::vector<CudaLeaf>& leaves,
                                   const std::string& args, const std::string& p,
                                   const std::string& where_text) {
  const bool two = k.block_dims == 2;
  std::string out;
  out += p + "// The case discussion of " + k.name + " (docs/comprehensive.md).\n";
  if (two)
    out += p + "const int64_t B0 = fm_h.param(\"B0\", 8), B1 = fm_h.param(\"B1\", 32), s_param = "
               "fm_h.param(\"s\", 1);\n";
  else
    out += p + "const int64_t B = fm_h.param(\"B\", FM_BLOCK), s_param = fm_h.param(\"s\", 1);\n";
  out += p + "const fm_harness::machine_limits fm_l = fm_h.machine(" + (two ? "B0 * B1" : "B") +
         ");\n";
  out += p + "const int64_t T = fm_l.T, Z = fm_l.Z, R = fm_l.R;\n";
  for (size_t j = 0; j < leaves.size(); ++j) {
    const CudaLeaf& leaf = leaves[j];
    const CudaVariant* v = nullptr;
    for (const CudaVariant& c : k.variants)
      if (c.function == leaf.function) v = &c;
    if (!v) throw Unsupported(k.name + ": no variant '" + leaf.function + "' for a leaf");
    out += p + (j ? "} else if (" : "if (") + "[&] { const int64_t s = s_param; return " +
           leaf.condition + "; }()) {\n";
    out += p + "  // leaf " + std::to_string(j + 1) + ": " + leaf.label + "\n";
    out += p + "  const int64_t s = " + (leaf.granularity_one ? "1" : "s_param") + ";\n";
    const std::string smem =
        v->cache ? tile_bytes(k.tiles, Poly::var(two ? "B1" : "B"), Poly::var("s"), Poly::var("B0"))
                       .to_string()
                 : "0";
    out += p + "  fm_kn = \"" + leaf.function + "\";\n";
    if (two)
      out += p + "  FM_LAUNCH_BLOCKS(" + leaf.function +
             ", fm_harness::grid_for2(fm_n, B0, (fm_m + s - 1) / s, B1), dim3((unsigned)B1, "
             "(unsigned)B0), " +
             smem + ", fm_n, fm_m, s" + args + ");\n";
    else
      out += p + "  FM_LAUNCH_BLOCKS(" + leaf.function +
             ", fm_harness::grid_for((fm_n + s - 1) / s, (int)B), dim3((unsigned)B), " + smem +
             ", fm_n, s" + args + ");\n";
  }
  out += p + (leaves.empty() ? "{\n" : "} else {\n");
  out += p + "  fm_harness::no_leaf(\"" + k.name + "\", " + where_text + ", " +
         (two ? "{{\"B0\", B0}, {\"B1\", B1}, " : "{{\"B\", B}, ") + "{\"s\", s_param}}, fm_l);\n";
  out += p + "}\n";
  return out;
}

} // namespace funmem::codegen

namespace funmem {

Poly tile_extent(const CudaTile& t, int dim, const Poly& B, const Poly& s, const Poly& B0) {
  switch (t.strip) {
  case CudaTile::Strip::Rows: // i by a strip of q
    return B0;
  case CudaTile::Strip::Columns: // a strip of q by j
    return dim == 0 ? B0 : B * s;
  case CudaTile::Strip::State:
    return dim == 0 ? Poly(t.span) * B0 : B * s;
  case CudaTile::Strip::None:
    break;
  }
  return (dim == 0 ? B0 : B * s) + Poly(t.unit == dim ? t.span : 0);
}

Poly tile_cells(const CudaTile& t, const Poly& B, const Poly& s, const Poly& B0) {
  if (t.dims == 2) return tile_extent(t, 0, B, s, B0) * tile_extent(t, 1, B, s, B0);
  return Poly(t.stride) * (B * s - Poly(1)) + Poly(t.span + 1);
}

Poly tile_bytes(const std::vector<CudaTile>& tiles, const Poly& B, const Poly& s, const Poly& B0) {
  Poly cells = 0;
  for (const CudaTile& t : tiles)
    cells = cells + tile_cells(t, B, s, B0);
  return Poly(8) * cells;
}

} // namespace funmem
