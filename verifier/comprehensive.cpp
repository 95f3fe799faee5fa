// Comprehensive parametric kernels: case discussions and dispatchers (see
// comprehensive.h and docs/comprehensive.md).
#include "verifier/comprehensive.h"

#include "support/files.h"
#include "verifier/resources.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <stdexcept>

namespace funmem {

namespace fs = std::filesystem;

namespace {

bool has(const std::vector<std::string>& applied, const char* s) {
  return std::find(applied.begin(), applied.end(), s) != applied.end();
}

Formula fact(const char* text) {
  Diagnostic d;
  std::optional<Formula> f = parse_fact(text, &d);
  return f ? *f : Formula{};
}

/// ptxas's registers per function of `code` (written to a scratch directory).
std::optional<std::vector<KernelResources>> measure(const CudaCode& code, const std::string& arch,
                                                    std::string* error) {
  std::string tmpl = (fs::temp_directory_path() / "funmem-cpk-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    *error = "cannot make a scratch directory";
    return std::nullopt;
  }
  const std::string cu = (fs::path(tmpl) / "kernels.cu").string();
  std::optional<std::vector<KernelResources>> r;
  if (std::string e = write_cuda(cu, code); !e.empty())
    *error = e;
  else
    r = ptxas_resources(cu, arch, {}, error);
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  return r;
}

/// The variant the strategies `applied` lead to (codegen makes one per cache setting
/// and register cap).
const CudaVariant& variant_of(const CudaKernelInfo& k, const std::vector<std::string>& applied,
                              int cap) {
  const bool cache = !k.tiles.empty() && !has(applied, "no-cache");
  const int reg_cap = has(applied, "register-cap") ? cap : 0;
  for (const CudaVariant& v : k.variants)
    if (v.cache == cache && v.register_cap == reg_cap) return v;
  throw std::logic_error(k.name + ": no variant for the strategies applied");
}

/// The conjuncts of `fs`, flattened, without comparisons of constants that hold and
/// without repetitions.
std::vector<Formula> simplified(const std::vector<Formula>& fs) {
  std::vector<Formula> out;
  std::vector<std::string> seen;
  std::function<void(const Formula&)> add = [&](const Formula& f) {
    if (f.kind == Formula::Kind::And) {
      for (const Formula& k : f.kids)
        add(k);
      return;
    }
    if (f.kind == Formula::Kind::True) return;
    if (f.kind == Formula::Kind::Cmp && f.lhs.constant() && f.rhs.constant())
      if (auto holds = f.eval({}); holds && *holds) return;
    const std::string text = f.to_string();
    if (std::find(seen.begin(), seen.end(), text) != seen.end()) return;
    seen.push_back(text);
    out.push_back(f);
  };
  for (const Formula& f : fs)
    add(f);
  return out;
}

/// The domain of the program parameters and limits (see comprehensive.h).
std::vector<Formula> domain_of(int block_dims, int cap) {
  const bool two = block_dims == 2;
  const std::string cap_fact = "R >= " + std::to_string(std::max(cap, 1));
  std::vector<const char*> facts;
  if (two)
    facts = {"B0 >= 1", "B1 >= 1", "B0 * B1 <= T"};
  else
    facts = {"B >= 1", "B <= T"};
  for (const char* f : {"T <= 1024", "s >= 1", "s <= 1024", "Z >= 0", "Z <= 49152", "R <= 255"})
    facts.push_back(f);
  facts.push_back(two ? "B0 * B1 * R <= 65536" : "B * R <= 65536");
  facts.push_back(cap_fact.c_str());
  std::vector<Formula> out;
  out.reserve(facts.size());
  for (const char* f : facts)
    out.push_back(fact(f));
  return out;
}

KernelCases discuss(const CudaKernelInfo& k, const std::map<std::string, int>& registers,
                    const std::map<std::string, int64_t>& spills, int cap, CaseOptions co) {
  KernelCases kc;
  kc.kernel = k.name;
  kc.pos = k.pos;
  kc.tiles = k.tiles;
  const bool two = k.block_dims == 2;
  kc.block_dims = k.block_dims;
  co.domain = kc.domain = domain_of(k.block_dims, cap);
  co.vars = two ? std::vector<std::string>{"B0", "B1", "s", "T", "Z", "R"}
                : std::vector<std::string>{"B", "s", "T", "Z", "R"};
  for (const CudaVariant& v : k.variants) {
    if (auto r = registers.find(v.function); r != registers.end())
      kc.registers[v.function] = r->second;
    if (auto r = spills.find(v.function); r != spills.end()) kc.spill_bytes[v.function] = r->second;
  }
  const bool measured = kc.registers.size() == k.variants.size() && !k.variants.empty();
  if (measured) kc.counters.push_back({"registers", "R", {"register-cap"}});
  kc.counters.push_back({"shared", "Z",
                         k.tiles.empty() ? std::vector<std::string>{}
                                         : std::vector<std::string>{"granularity", "no-cache"}});
  kc.counters.push_back({"threads", "T", {}});
  auto evaluate = [&](const std::vector<std::string>& applied) {
    const Poly B = Poly::var(two ? "B1" : "B"), B0 = two ? Poly::var("B0") : Poly(1);
    const Poly s = has(applied, "granularity") ? Poly(1) : Poly::var("s");
    const CudaVariant& v = variant_of(k, applied, cap);
    CounterValues c;
    if (measured) c["registers"] = Poly(kc.registers.at(v.function));
    c["shared"] = v.cache ? tile_bytes(k.tiles, B, s, B0) : Poly(0);
    c["threads"] = B0 * B;
    return c;
  };
  kc.cases = comprehensive(kc.counters, evaluate, co);
  for (const CaseLeaf& leaf : kc.cases.leaves) {
    CudaLeaf cl;
    kc.systems.push_back(simplified(leaf.constraints));
    for (const Formula& f : kc.systems.back())
      cl.condition += (cl.condition.empty() ? "(" : " && (") + f.to_string() + ")";
    if (cl.condition.empty()) cl.condition = "true";
    cl.function = variant_of(k, leaf.strategies, cap).function;
    cl.granularity_one = has(leaf.strategies, "granularity");
    for (const std::string& s : leaf.strategies)
      cl.label += (cl.label.empty() ? "" : ", ") + s;
    if (cl.label.empty()) cl.label = "no strategy";
    kc.leaves.push_back(cl);
    // A point of the leaf at B = 256 (8 x 32), s = 4 when there is one (else its model).
    Env at = leaf.model;
    std::vector<Formula> typical = leaf.constraints;
    for (const char* f : two ? std::vector<const char*>{"B0 == 8", "B1 == 32", "s == 4"}
                             : std::vector<const char*>{"B == 256", "s == 4"})
      typical.push_back(fact(f));
    Solver solver(co.domain, co.timeout_ms);
    Env m;
    if (solver.check(typical, co.vars, &m, co.timeout_ms) == SatResult::Sat) at = m;
    kc.sample.push_back(at);
  }
  return kc;
}

} // namespace

std::optional<Comprehensive>
comprehensive_kernels(const Lowered& l, const ComprehensiveOptions& opt, std::string* error) {
  CudaOptions co = l.cuda;
  co.parametric = true;
  co.leaves.clear();
  const int cap = co.register_caps.empty() ? 0 : co.register_caps.front();
  std::string why;
  std::optional<CudaCode> plain = imp_to_cuda(l.imp, l.result_types, co, &why);
  if (!plain) {
    *error = "codegen: " + why;
    return std::nullopt;
  }
  Comprehensive out;
  std::map<std::string, int> registers;
  std::map<std::string, int64_t> spills;
  if (!opt.registers) {
    out.registers_note = "not measured (asked)";
  } else if (nvcc_path().empty()) {
    out.registers_note = "not measured: nvcc not found under /usr/local/cuda";
  } else {
    auto r = measure(*plain, opt.arch, &why);
    if (!r) {
      *error = "registers: " + why;
      return std::nullopt;
    }
    for (const KernelResources& k : *r) {
      registers[k.kernel] = k.registers;
      spills[k.kernel] = k.spill_store_bytes + k.spill_load_bytes;
    }
  }
  CaseOptions cases;
  cases.timeout_ms = opt.timeout_ms;
  out.domain = domain_of(1, cap);
  for (const CudaKernelInfo& k : plain->kernels) {
    if (k.variants.empty()) continue;
    out.kernels.push_back(discuss(k, registers, spills, cap, cases));
    co.leaves[k.name] = out.kernels.back().leaves;
  }
  std::optional<CudaCode> code = imp_to_cuda(l.imp, l.result_types, co, &why);
  if (!code) {
    *error = "codegen: " + why;
    return std::nullopt;
  }
  out.code = *code;
  return out;
}

namespace {

/// A tile as the case discussion's text shows it.
std::string tile_text(const CudaTile& tile) {
  const Poly B1 = Poly::var("B1"), s = Poly::var("s"), B0 = Poly::var("B0");
  const std::string reads = ", " + std::to_string(tile.reads) + " reads";
  const std::string rows = "(" + tile_extent(tile, 0, B1, s, B0).to_string() + ")";
  const std::string cols = "(" + tile_extent(tile, 1, B1, s, B0).to_string() + ")";
  const std::string fastest = std::string(tile.unit == 0 ? ", rows" : ", columns") + " fastest";
  switch (tile.strip) {
  case CudaTile::Strip::Rows:
    return "tile of " + tile.mem + ": " + rows + " rows x " + cols + " values of a strip" +
           fastest + reads;
  case CudaTile::Strip::Columns:
    return "tile of " + tile.mem + ": " + rows + " values of a strip x " + cols + " columns" +
           fastest + reads;
  case CudaTile::Strip::State:
    return "state kept across the strips: " + std::to_string(tile.span) +
           " value(s) per iteration, " + rows + " x " + cols + " cells";
  case CudaTile::Strip::None:
    break;
  }
  if (tile.dims == 2)
    return "tile of " + tile.mem + ": " + rows + " x " + cols + " cells" + fastest + reads;
  return "tile of " + tile.mem + ": " + std::to_string(tile.stride) + " * (B*s - 1) + " +
         std::to_string(tile.span + 1) + " cells" + reads;
}

} // namespace

std::string comprehensive_text(const Comprehensive& c) {
  std::string t;
  auto listed = [](const std::vector<Formula>& fs) {
    std::string out;
    for (const Formula& f : fs)
      out += (out.empty() ? "" : ", ") + f.to_string();
    return out;
  };
  // The one-dimensional kernels' domain first; a nest's kernel gives its own.
  if (std::any_of(c.kernels.begin(), c.kernels.end(),
                  [](const KernelCases& k) { return k.block_dims == 1; }))
    t += "domain: " + listed(c.domain) + "\n";
  if (!c.registers_note.empty()) t += "registers: " + c.registers_note + "\n";
  for (const KernelCases& k : c.kernels) {
    t += "\n" + k.kernel + " (the kernel at " + std::to_string(k.pos.line) + ":" +
         std::to_string(k.pos.col) + ")\n";
    if (k.block_dims == 2) t += "  domain: " + listed(k.domain) + "\n";
    const Poly B1 = Poly::var("B1"), s = Poly::var("s"), B0 = Poly::var("B0");
    for (const CudaTile& tile : k.tiles)
      t += "  " + tile_text(tile) + "\n";
    for (const auto& [f, r] : k.registers)
      t += "  " + f + ": " + std::to_string(r) + " registers" +
           (k.spill_bytes.count(f) && k.spill_bytes.at(f)
                ? ", " + std::to_string(k.spill_bytes.at(f)) + " spill bytes"
                : "") +
           "\n";
    t += case_tree_text(k.cases);
    for (size_t j = 0; j < k.leaves.size(); ++j)
      t += "  leaf " + std::to_string(j + 1) + " launches " + k.leaves[j].function +
           (k.leaves[j].granularity_one ? " with s = 1" : "") + "\n";
  }
  return t;
}

nlohmann::json comprehensive_json(const Comprehensive& c) {
  nlohmann::json j;
  for (const Formula& f : c.domain)
    j["domain"].push_back(f.to_string());
  j["registers_note"] = c.registers_note;
  j["kernels"] = nlohmann::json::array();
  for (const KernelCases& k : c.kernels) {
    nlohmann::json jk;
    jk["kernel"] = k.kernel;
    jk["line"] = k.pos.line;
    jk["col"] = k.pos.col;
    jk["block_dims"] = k.block_dims;
    for (const Formula& f : k.domain)
      jk["domain"].push_back(f.to_string());
    for (const CudaTile& t : k.tiles)
      jk["tiles"].push_back({{"mem", t.mem},
                             {"stride", t.stride},
                             {"span", t.span},
                             {"reads", t.reads},
                             {"dims", t.dims},
                             {"unit", t.unit}});
    jk["registers"] = k.registers;
    for (const ResourceCounter& rc : k.counters)
      jk["counters"].push_back(
          {{"name", rc.name}, {"limit", rc.limit}, {"strategies", rc.lowered_by}});
    jk["coverage"] = k.cases.coverage == SatResult::Unsat ? "proved"
                     : k.cases.coverage == SatResult::Sat ? "uncovered"
                                                          : "unknown";
    if (k.cases.coverage == SatResult::Sat) jk["uncovered"] = k.cases.uncovered;
    jk["all_consistent"] = k.cases.all_consistent;
    for (size_t l = 0; l < k.leaves.size(); ++l) {
      const CaseLeaf& leaf = k.cases.leaves[l];
      nlohmann::json jl;
      for (const Formula& f : leaf.constraints)
        jl["constraints"].push_back(f.to_string());
      for (const Formula& f : k.systems[l])
        jl["system"].push_back(f.to_string());
      jl["strategies"] = leaf.strategies;
      jl["function"] = k.leaves[l].function;
      jl["granularity_one"] = k.leaves[l].granularity_one;
      for (const auto& [name, v] : leaf.counters)
        jl["counters"][name] = v.to_string();
      jl["sample"] = k.sample[l];
      jk["leaves"].push_back(jl);
    }
    for (const auto& [counter, leaf] : k.cases.optimal_leaf)
      jk["optimal_leaf"][counter] = leaf ? nlohmann::json(*leaf) : nlohmann::json(nullptr);
    j["kernels"].push_back(jk);
  }
  return j;
}

std::string launched_functions(const std::string& time_report, const std::string& kernel) {
  std::string out;
  const std::string key = "time: kernel ";
  for (size_t at = time_report.find(key); at != std::string::npos;
       at = time_report.find(key, at + 1)) {
    const size_t begin = at + key.size(), end = time_report.find(' ', begin);
    const std::string name = time_report.substr(begin, end - begin);
    if (name == kernel || name.rfind(kernel + "_", 0) == 0) out += (out.empty() ? "" : " ") + name;
  }
  return out;
}

std::string leaf_args(const KernelCases& k, size_t leaf) {
  const Env& e = k.sample.at(leaf);
  auto v = [&](const char* n) {
    auto it = e.find(n);
    return std::to_string(it == e.end() ? 1 : it->second);
  };
  const std::string limits = " --param s=" + v("s") + " --limit T=" + v("T") +
                             " --limit Z=" + v("Z") + " --limit R=" + v("R");
  if (k.block_dims == 2)
    return "--param B0=" + v("B0") + " --param B1=" + v("B1") + limits + " --threshold '*=inf'";
  return "--param B=" + v("B") + limits;
}

} // namespace funmem
