// The compilation pipeline (see pipeline.h).
#include "analysis/pipeline.h"

#include "analysis/fun_to_funmem.h"
#include "ir/printer.h"
#include "ir/typecheck.h"

#include <exception>

namespace funmem {

const std::vector<StageInfo>& stage_table() {
  static const std::vector<StageInfo> table = {
      {Stage::FunToFunmem, "fun-to-funmem", Lang::Fun, "explicit allocations and copies"},
      {Stage::Sc, "sc", Lang::FunMem, "short-circuiting: build arrays where they are copied to"},
      {Stage::Merge, "merge", Lang::FunMem, "memory block merging"},
      {Stage::Hoist, "hoist", Lang::FunMem, "allocations moved up"},
      {Stage::Expand, "expand", Lang::FunMem, "allocations out of kernels (GPU layout)"},
      {Stage::ExpandCpu, "expand-cpu", Lang::FunMem, "allocations out of kernels (CPU layout)"},
      {Stage::ToImp, "to-imp", Lang::FunMem, "FUNMEM to IMP (last)"},
  };
  return table;
}

const StageInfo& stage_info(Stage s) {
  return stage_table()[static_cast<size_t>(s)];
}

const char* stage_name(Stage s) {
  return stage_info(s).name;
}

std::optional<Stage> stage_from_name(const std::string& name) {
  for (const StageInfo& i : stage_table())
    if (name == i.name) return i.stage;
  return std::nullopt;
}

std::string stage_names_text() {
  std::string all;
  for (const StageInfo& i : stage_table())
    all += (all.empty() ? "" : ", ") + std::string(i.name);
  return all;
}

namespace {

/// The deliberately broken variants: a name and the option that switches it on.
struct BrokenVariant {
  const char* name;
  bool& (*flag)(PassOptions&);
};
const BrokenVariant kBrokenVariants[] = {
    {"sc-no-overlap", [](PassOptions& o) -> bool& { return o.sc.broken_no_overlap; }},
    {"merge-no-interference",
     [](PassOptions& o) -> bool& { return o.merge.broken_no_interference; }},
    {"sosi-no-cross", [](PassOptions& o) -> bool& { return o.sc.prover.broken_no_cross; }},
    {"sc-late-facts", [](PassOptions& o) -> bool& { return o.sc.broken_late_facts; }},
    {"sc-float-facts", [](PassOptions& o) -> bool& { return o.sc.broken_float_facts; }},
    {"sc-never-fails", [](PassOptions& o) -> bool& { return o.sc.broken_never_fails; }},
    {"sc-scratch-in-place", [](PassOptions& o) -> bool& { return o.sc.broken_scratch; }},
    {"sc-no-injective", [](PassOptions& o) -> bool& { return o.sc.broken_no_injective; }},
    {"sc-chain-past-check", [](PassOptions& o) -> bool& { return o.sc.broken_chain_check; }},
    {"sc-outside-block", [](PassOptions& o) -> bool& { return o.sc.broken_outside_block; }},
    {"sc-shared-block", [](PassOptions& o) -> bool& { return o.sc.broken_shared_block; }},
    {"sc-check-arith", [](PassOptions& o) -> bool& { return o.sc.broken_check_arith; }},
    {"sc-ignore-elemtype", [](PassOptions& o) -> bool& { return o.sc.broken_elemtype; }},
    {"sc-hoist-past-use", [](PassOptions& o) -> bool& { return o.sc.broken_hoist_use; }},
    {"sc-lift-if-result", [](PassOptions& o) -> bool& { return o.sc.broken_lift_if_result; }},
    {"sc-if-branch-uses", [](PassOptions& o) -> bool& { return o.sc.broken_branch_uses; }},
    {"sc-if-outside-uses", [](PassOptions& o) -> bool& { return o.sc.broken_outside_uses; }},
};

} // namespace

const std::vector<std::string>& broken_variant_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const BrokenVariant& v : kBrokenVariants)
      n.push_back(v.name);
    return n;
  }();
  return names;
}

bool set_broken_variant(PassOptions& opt, const std::string& name) {
  for (const BrokenVariant& v : kBrokenVariants)
    if (name == v.name) {
      v.flag(opt) = true;
      return true;
    }
  return false;
}

std::string broken_variants_text(const PassOptions& opt) {
  PassOptions copy = opt;
  std::string text;
  for (const BrokenVariant& v : kBrokenVariants)
    if (v.flag(copy)) text += (text.empty() ? "" : " ") + std::string("--broken ") + v.name;
  return text;
}

std::vector<Stage> standard_stages(Lang lang, bool sc, bool to_imp) {
  std::vector<Stage> s;
  for (const StageInfo& i : stage_table()) {
    const bool skip = (i.stage == Stage::FunToFunmem && lang != Lang::Fun) ||
                      (i.stage == Stage::Sc && !sc) || i.stage == Stage::ExpandCpu ||
                      (i.stage == Stage::ToImp && !to_imp);
    if (!skip) s.push_back(i.stage);
  }
  return s;
}

const Program& PipelineResult::last_program(const Program& input) const {
  for (auto it = stages.rbegin(); it != stages.rend(); ++it)
    if (it->program) return *it->program;
  return input;
}

const ScReport* PipelineResult::sc_report() const {
  for (const StageResult& s : stages)
    if (s.sc) return &*s.sc;
  return nullptr;
}

namespace {

std::string count(int n, const char* what) {
  return std::to_string(n) + " " + what;
}

/// The FUN/FUNMEM passes: the result and its report.
std::optional<Program> run_program_pass(Stage s, const Program& p, const PassOptions& opt,
                                        StageResult& r, std::string* error) {
  switch (s) {
  case Stage::FunToFunmem: {
    FunToFunmemReport rep;
    auto out = fun_to_funmem(p, &rep, error);
    r.report = "fun-to-funmem: " + count(rep.allocations, "allocations, ") +
               count(rep.copies, "copies, ") + count(rep.mem_params, "memory parameters added");
    return out;
  }
  case Stage::Sc: {
    ScReport rep;
    Program out = short_circuit(p, &rep, opt.sc);
    r.report = sc_report_text(rep);
    if (!r.report.empty() && r.report.back() == '\n') r.report.pop_back();
    r.sc = std::move(rep);
    return out;
  }
  case Stage::Merge: {
    MergeReport rep;
    Program out = merge_blocks(p, &rep, opt.merge);
    r.report = "merge: " + count(rep.blocks_before, "allocations before, ") +
               std::to_string(rep.blocks_after) + " after (" + count(rep.merged, "blocks merged)");
    return out;
  }
  case Stage::Hoist: {
    int moved = 0;
    Program out = hoist_allocs(p, &moved);
    r.report = "hoist: " + count(moved, "allocations moved up");
    return out;
  }
  case Stage::Expand:
  case Stage::ExpandCpu: {
    ExpandReport rep;
    const bool gpu = s == Stage::Expand;
    Program out = expand_memory(p, gpu ? ExpandLayout::Gpu : ExpandLayout::Cpu, &rep);
    r.report = std::string(stage_name(s)) + ": " +
               count(rep.expanded, "allocations taken out of kernels (") +
               (gpu ? "interleaved GPU" : "per-thread CPU") + " layout), " +
               count(rep.hoisted, "hoisted, ") + count(int(rep.refused.size()), "refused");
    for (const std::string& why : rep.refused)
      r.report += "\n  refused " + why;
    return out;
  }
  case Stage::ToImp:
    break;
  }
  return std::nullopt;
}

/// One stage on `p` (`input_typed`: p has been type-checked): its result, or nullopt
/// with `error` (without the `stage NAME:` prefix). Exceptions pass through.
std::optional<StageResult> run_stage(Stage s, const Program& p, const PipelineOptions& opt,
                                     bool input_typed, std::string* error) {
  const StageInfo& info = stage_info(s);
  if (p.lang != info.input) {
    *error = std::string(info.name) + " needs a " + (info.input == Lang::Fun ? "FUN" : "FUNMEM") +
             " program";
    return std::nullopt;
  }
  StageResult r;
  r.stage = s;
  if (s == Stage::ToImp) {
    r.imp = funmem_to_imp(p, &r.imp_report, error);
    if (!r.imp) return std::nullopt;
    r.report = "to-imp: " + count(r.imp_report.kernels, "IMP kernels, ") +
               count(r.imp_report.copies, "copies, ") +
               count(r.imp_report.elided, "copies elided (built in place)");
    return r;
  }
  r.program = run_program_pass(s, p, opt.pass, r, error);
  if (!r.program) return std::nullopt;
  r.unchanged = r.program->def == p.def;
  if (!opt.verify || (r.unchanged && input_typed)) return r;
  auto errs = typecheck(*r.program);
  if (!errs.empty()) {
    *error = std::string(info.name) + " produced an ill-typed program: " +
             format_diagnostic(errs[0], "<" + std::string(info.name) + " output>",
                               print_program(*r.program));
    return std::nullopt;
  }
  return r;
}

} // namespace

PipelineResult run_pipeline(const Program& p, const PipelineOptions& opt) {
  PipelineResult res;
  for (size_t k = 0; k < opt.stages.size(); ++k) {
    const Stage s = opt.stages[k];
    std::string why;
    std::optional<StageResult> r;
    if (s == Stage::ToImp && k + 1 != opt.stages.size()) {
      why = "to-imp must be the last stage (its output is IMP)";
    } else {
      try {
        const bool input_typed = res.stages.empty() ? opt.input_typed : opt.verify;
        r = run_stage(s, res.last_program(p), opt, input_typed, &why);
      } catch (const std::exception& e) {
        why = std::string("internal error: ") + e.what();
        r.reset();
      }
    }
    if (!r) {
      res.error = std::string("stage ") + stage_name(s) + ": " + why;
      res.failed = s;
      return res;
    }
    res.stages.push_back(std::move(*r));
  }
  return res;
}

} // namespace funmem
