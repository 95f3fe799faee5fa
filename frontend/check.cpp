// The front-end pipeline (check.h).
#include "frontend/check.h"
#include "frontend/dynamic/confirm.h"

namespace funmem::frontend {

bool FileCheck::all_race_free() const {
  if (!errors.empty()) return false;
  for (const KernelVerdict& v : verdicts)
    if (v.verdict != Verdict::RaceFree) return false;
  return true;
}

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
  // What the static checker leaves open: run the kernel (the dynamic detector). The
  // detector has plain CUDA semantics: not run under GPUVerify's abstractions.
  if (options.run && !opt.semantics_changed())
    confirm_by_running(code, file, out.kernels, out.verdicts, opt.facts, options.clang_args);
  return out;
}

} // namespace funmem::frontend
