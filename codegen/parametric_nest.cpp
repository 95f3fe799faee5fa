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

/// A read m[a_i * i + a_j * j + base + offset]: coefficients and base invariant in the
/// nest (as text), `offset` a constant.
struct AffineRead2 {
  const imp::Read* read;
  std::string ai, aj, base;
  int64_t offset;
};

std::optional<AffineRead2> affine2(const imp::Read& r, const std::string& i, const std::string& j,
                                   const std::set<std::string>& assigned) {
  std::optional<Poly> p = to_poly(*r.index);
  if (!p) return std::nullopt;
  for (const std::string& v : p->free_vars())
    if (v != i && v != j && assigned.count(v)) return std::nullopt;
  const Poly p0 = p->substitute({{i, 0}, {j, 0}});
  const Poly ai = p->substitute({{i, 1}, {j, 0}}) - p0, aj = p->substitute({{i, 0}, {j, 1}}) - p0;
  for (const Poly* a : {&ai, &aj})
    for (const std::string& v : a->free_vars())
      if (v == i || v == j) return std::nullopt;
  if (!(*p == ai * Poly::var(i) + aj * Poly::var(j) + p0)) return std::nullopt;
  std::map<std::string, Poly> zero;
  for (const std::string& v : p0.free_vars())
    zero[v] = 0;
  std::optional<int64_t> c = p0.substitute(zero).constant();
  if (!c) return std::nullopt;
  return AffineRead2{&r, ai.to_string(), aj.to_string(), (p0 - Poly(*c)).to_string(), *c};
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
    if (auto a = affine2(*r, i, j, assigned))
      groups[r->mem.s + "|" + a->ai + "|" + a->aj + "|" + a->base].push_back(*a);
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
    const std::string& ai = g[0].ai;
    const std::string& aj = g[0].aj;
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
                             const std::string& i, const std::string& j) {
  std::string t =
      "      // Every thread loads its share of the tiles; the barrier ends the loads.\n";
  t += "      FM_THREADS {\n        const int64_t fm_t = FM_TID2, fm_bt = fm_B0 * fm_B1;\n";
  std::string indented;
  for (size_t a = 0; a < copies.size();) {
    size_t e = copies.find('\n', a);
    indented += "        " + copies.substr(a, e - a + 1);
    a = e + 1;
  }
  for (size_t k = 0; k < tiles.size(); ++k) {
    const std::string K = std::to_string(k), m = "p_" + cname(tiles[k].tile.mem);
    // Cell x of the tile, fastest along its unit-coefficient dimension, is element
    // (fm_i0 + x0, fm_j0 + x1) of the first read's index.
    const bool rows_fastest = tiles[k].tile.unit == 0;
    const std::string x0 = rows_fastest ? "fm_x % fm_e0" + K : "fm_x / fm_e1" + K;
    const std::string x1 = rows_fastest ? "fm_x / fm_e0" + K : "fm_x % fm_e1" + K;
    t += "        for (int64_t fm_q = 0; fm_q < (fm_len" + K + " + fm_bt - 1) / fm_bt; ++fm_q) {\n";
    t += "          const int64_t fm_x = fm_q * fm_bt + fm_t;\n";
    t += "          if (fm_x < fm_len" + K + ") {\n" + indented;
    t += "            const int64_t " + cname(i) + " = fm_i0 + " + x0 + ";\n";
    t += "            const int64_t " + cname(j) + " = fm_j0 + " + x1 + ";\n";
    t += "            const int64_t fm_g = " + exp(*tiles[k].first->index).first + ";\n";
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
    loads = tile_loads2(tiles, copies, l.iter.s, nest.inner->iter.s);
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
  std::string body;
  nest_body(nest, "{ const int64_t " + cname(nest.inner->iter.s) + " = fm_p;", body, 8);
  tile_reads_.clear();
  leave_function(was_device);

  std::string t =
      "// The kernel at " + opt_.source_file + ":" + where(pos) +
      ": blocks of B0 x B1 = blockDim.y x blockDim.x threads, s = fm_s inner iterations each" +
      (v.cache ? ", inputs in shared-memory tiles" : "") +
      (v.register_cap ? ", at most " + std::to_string(v.register_cap) + " registers" : "") + ".\n";
  t += "__global__ void " +
       (v.register_cap ? "FM_MAXNREG(" + std::to_string(v.register_cap) + ") " : std::string()) +
       name + "(" + sig + ") {\n";
  if (v.cache) t += "  FM_SHARED_CELLS;\n";
  t += "  const int64_t fm_B0 = blockDim.y, fm_B1 = blockDim.x, fm_per = fm_B1 * fm_s;\n";
  if (v.cache) t += tile_decls(tiles, l, true);
  t += "  const int64_t fm_rows = (fm_n + fm_B0 - 1) / fm_B0, fm_cols = (fm_m + fm_per - 1) / "
       "fm_per;\n";
  t += "  for (int64_t fm_ci = blockIdx.y; fm_ci < fm_rows; fm_ci += gridDim.y) {\n";
  t += "    for (int64_t fm_cj = blockIdx.x; fm_cj < fm_cols; fm_cj += gridDim.x) {\n";
  t += "      const int64_t fm_i0 = fm_ci * fm_B0, fm_j0 = fm_cj * fm_per;\n";
  t += loads;
  t += "      FM_THREADS {\n        const int64_t fm_o = fm_i0 + FM_TY;\n";
  t += "        for (int64_t fm_k = 0; fm_k < fm_s; ++fm_k) {\n";
  t += "          const int64_t fm_p = fm_j0 + fm_k * fm_B1 + FM_TX;\n";
  t += "          if (fm_o < fm_n && fm_p < fm_m) {\n";
  t += "          // Each iteration starts from the values before the kernel.\n";
  for (size_t a = 0; a < copies.size();) {
    size_t e = copies.find('\n', a);
    t += "        " + copies.substr(a, e - a + 1);
    a = e + 1;
  }
  t += "            const int64_t " + cname(l.iter.s) + " = fm_o;\n";
  t += "            {\n" + body + "            }\n";
  t += "          }\n        }\n      }\n";
  if (v.cache) t += "      FM_SYNC(); // the tiles are reloaded for the next chunk\n";
  t += "    }\n  }\n}\n\n";
  return t;
}

void Gen::parametric_variants2(const imp::Loop& l, const Nest& nest, Pos pos,
                               const std::string& sig, const std::string& copies,
                               const std::vector<std::pair<std::string, VarInfo>>& captured,
                               CudaKernelInfo& k) {
  k.block_dims = 2;
  std::vector<TileInfo> tiles = find_tiles2(l, nest);
  for (const TileInfo& t : tiles)
    k.tiles.push_back(t.tile);
  std::vector<int> caps = {0};
  caps.insert(caps.end(), opt_.register_caps.begin(), opt_.register_caps.end());
  for (bool cache : {false, true}) {
    if (cache && tiles.empty()) continue;
    for (int cap : caps) {
      CudaVariant v{k.name + (cache ? "_b2c" : "_b2") +
                        (cap ? "_r" + std::to_string(cap) : std::string()),
                    cache, cap};
      kernels_text_ += par2_kernel_fn(v.function, "int64_t fm_n, int64_t fm_m, int64_t fm_s" + sig,
                                      pos, copies, captured, l, nest, tiles, k, v);
      k.variants.push_back(v);
    }
  }
}

} // namespace funmem::codegen
