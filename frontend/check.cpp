// The front-end pipeline (check.h).
#include "frontend/check.h"
#include "frontend/dynamic/confirm.h"
#include <algorithm>
#include <cmath>
#include <set>

namespace funmem::frontend {

bool FileCheck::all_race_free() const {
  if (!errors.empty()) return false;
  for (const KernelVerdict& v : verdicts)
    if (v.verdict != Verdict::RaceFree) return false;
  return true;
}

namespace {

/// A wrap C defines that the checker could not prove absent leaves its kernel unknown:
/// the file is extracted again with those operations modelled exactly (modulo their
/// types' sizes, ExtractOptions::modular) and such kernels checked again within what is
/// left of their budgets; up to three rounds (an exact wrap can leave the next value's
/// check open).
void modular_rounds(const std::string& code, const std::string& file, const CheckOptions& options,
                    FileCheck& out) {
  const unsigned budget = out.options.budget_ms; // 0: none
  // What is left of a kernel's budget (its verdict's work_ms counts every round).
  auto left = [&](const KernelVerdict& v) {
    const auto spent = static_cast<unsigned>(std::ceil(v.work_ms));
    return budget > spent ? budget - spent : 0u;
  };
  auto again = [&](const KernelVerdict& v) {
    return (!v.open_wraps.empty() || !v.open_obligations.empty()) && (budget == 0 || left(v) > 0);
  };
  ExtractOptions eo = options.extract;
  // Each kernel's exact wraps and its loops not summarised.
  std::vector<std::set<std::string>> wraps(out.verdicts.size()), loops(out.verdicts.size());
  for (int round = 0; round < 3; ++round) {
    bool fresh = false;
    for (size_t i = 0; i < out.verdicts.size(); ++i) {
      const KernelVerdict& v = out.verdicts[i];
      if (!again(v)) continue;
      for (const auto& [open, mine] :
           {std::pair{&v.open_wraps, &wraps[i]}, std::pair{&v.open_obligations, &loops[i]}})
        for (const std::string& w : *open) {
          mine->insert(w);
          fresh = eo.modular.insert(w).second || fresh;
        }
    }
    if (!fresh) return;
    ExtractResult r = extract(code, file, options.clang_args, eo);
    if (!r.errors.empty() || r.kernels.size() != out.kernels.size()) return;
    for (size_t i = 0; i < out.kernels.size(); ++i) {
      KernelVerdict& v = out.verdicts[i];
      if (!again(v)) continue;
      RaceOptions o = out.options;
      o.budget_ms = budget == 0 ? 0 : left(v);
      const double before = v.work_ms;
      out.kernels[i] = std::move(r.kernels[i]);
      v = check_kernel(out.kernels[i], o);
      v.work_ms += before;
      if (v.verdict != Verdict::RaceFree) continue;
      if (!wraps[i].empty())
        v.reason += "; C's wrap-around taken modulo the type's size at " +
                    std::to_string(wraps[i].size()) + " place(s)";
      if (!loops[i].empty())
        v.reason += "; " + std::to_string(loops[i].size()) +
                    " loop(s) taken for any number of iterations (a summary's condition "
                    "was not proved)";
    }
  }
}

} // namespace

FileCheck check_cuda_file(const std::string& code, const std::string& file,
                          const CheckOptions& options) {
  FileCheck out;
  out.header = read_gpuverify_header(code);
  RaceOptions& opt = out.options;
  opt = options.race;
  opt.facts.insert(opt.facts.end(), out.header.facts.begin(), out.header.facts.end());
  if (options.header_semantics) {
    opt.equal_writes = opt.equal_writes || out.header.equal_writes;
    opt.warp_sync = opt.warp_sync > 0 ? opt.warp_sync : out.header.warp_sync;
    opt.only_intra_group = opt.only_intra_group || out.header.only_intra_group;
  }
  out.fact_texts = out.header.fact_texts;
  for (const std::string& a : options.assumes) {
    Diagnostic d;
    auto f = parse_launch_fact(a, &d);
    if (!f) {
      out.errors.push_back("--assume '" + a + "':" + std::to_string(d.pos.col) +
                           ": error: " + d.message);
      return out;
    }
    opt.facts.push_back(*f);
    out.fact_texts.push_back(a);
  }
  ExtractResult r = extract(code, file, options.clang_args, options.extract);
  if (!r.errors.empty()) {
    out.errors = std::move(r.errors);
    return out;
  }
  out.parsed = true;
  if (r.kernels.empty()) {
    out.errors.push_back(file + ": error: no __global__ function with a body");
    return out;
  }
  out.kernels = std::move(r.kernels);
  for (const KernelSummary& k : out.kernels)
    out.verdicts.push_back(check_kernel(k, opt));
  modular_rounds(code, file, options, out);
  // What the static checker leaves open: run the kernel (the dynamic detector). The
  // detector has plain CUDA semantics: not run under GPUVerify's abstractions.
  if (options.run && !opt.semantics_changed())
    confirm_by_running(code, file, out.kernels, out.verdicts, opt.facts, options.clang_args);
  return out;
}

} // namespace funmem::frontend
