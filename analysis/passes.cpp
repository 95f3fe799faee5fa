// The pass registry (see passes.h).
#include "analysis/passes.h"

#include "analysis/broken.h"

#include "analysis/expand.h"
#include "analysis/fun_to_funmem.h"
#include "analysis/merge.h"
#include "ir/printer.h"
#include "ir/typecheck.h"

namespace funmem {

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names = {"fun-to-funmem", "sc", "merge", "hoist", "expand"};
  return names;
}

PassResult run_pass(const std::string& name, const Program& p, bool p_typed) {
  PassResult r;
  if (name == "fun-to-funmem") {
    if (p.lang != Lang::Fun) {
      r.error = "fun-to-funmem needs a FUN program";
      return r;
    }
    FunToFunmemReport rep;
    r.program = fun_to_funmem(p, &rep, &r.error);
    r.report = "fun-to-funmem: " + std::to_string(rep.allocations) + " allocations, " +
               std::to_string(rep.copies) + " copies, " + std::to_string(rep.mem_params) +
               " memory parameters added";
  } else if (name == "sc") {
    if (p.lang != Lang::FunMem) {
      r.error = "sc needs a FUNMEM program";
      return r;
    }
    ScReport rep;
    r.program = short_circuit(p, &rep);
    r.report = sc_report_text(rep);
    if (!r.report.empty() && r.report.back() == '\n') r.report.pop_back();
    r.sc = std::move(rep);
  } else if (name == "merge") {
    if (p.lang != Lang::FunMem) {
      r.error = "merge needs a FUNMEM program";
      return r;
    }
    MergeReport rep;
    r.program = merge_blocks(p, &rep);
    r.report = "merge: " + std::to_string(rep.blocks_before) + " allocations before, " +
               std::to_string(rep.blocks_after) + " after (" + std::to_string(rep.merged) +
               " blocks merged)";
  } else if (name == "hoist" || name == "expand" || name == "expand-cpu") {
    if (p.lang != Lang::FunMem) {
      r.error = name + " needs a FUNMEM program";
      return r;
    }
    if (name == "hoist") {
      int moved = 0;
      r.program = hoist_allocs(p, &moved);
      r.report = "hoist: " + std::to_string(moved) + " allocations moved up";
    } else {
      ExpandReport rep;
      ExpandLayout lay = name == "expand" ? ExpandLayout::Gpu : ExpandLayout::Cpu;
      r.program = expand_memory(p, lay, &rep);
      r.report = name + ": " + std::to_string(rep.expanded) +
                 " allocations taken out of kernels (" +
                 (lay == ExpandLayout::Gpu ? "interleaved GPU" : "per-thread CPU") + " layout), " +
                 std::to_string(rep.hoisted) + " hoisted, " + std::to_string(rep.refused.size()) +
                 " refused";
      for (const std::string& why : rep.refused)
        r.report += "\n  refused " + why;
    }
  } else {
    std::string all;
    for (auto& n : pass_names())
      all += (all.empty() ? "" : ", ") + n;
    r.error = "unknown pass '" + name + "' (available: " + all + ")";
    return r;
  }
  if (!r.program) return r;
  if (p_typed && r.program->def == p.def) return r;
  auto errs = typecheck(*r.program);
  if (!errs.empty()) {
    r.error = name + " produced an ill-typed program: " +
              format_diagnostic(errs[0], "<" + name + " output>", print_program(*r.program));
    r.program.reset();
  }
  return r;
}

BrokenVariants& broken_variants() {
  static BrokenVariants b;
  return b;
}

} // namespace funmem
