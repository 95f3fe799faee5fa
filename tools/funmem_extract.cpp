// funmem-extract: reads CUDA kernels with Clang, summarises each thread's accesses and
// proves race freedom with the non-overlap prover (docs/extract.md).
#include "frontend/check.h"
#include "support/files.h"
#include "tools/guarded_main.h"
#include "tools/pass_through.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

using namespace funmem;
using namespace funmem::frontend;
using json = nlohmann::json;

namespace {

std::string where(const std::string& file, Pos p) {
  return file + ":" + std::to_string(p.line) + ":" + std::to_string(p.col);
}

const char* space_name(Space s) {
  return s == Space::Shared ? "shared" : "global";
}

/// One kernel's summary, questions and verdict as JSON (--json).
json kernel_json(const KernelSummary& k, const KernelVerdict& v) {
  json jk;
  jk["name"] = k.name;
  jk["line"] = k.pos.line;
  jk["verdict"] = verdict_name(v.verdict);
  jk["reason"] = display_names(v.reason);
  jk["ms"] = v.ms;
  jk["work_ms"] = v.work_ms;
  jk["wall_guard"] = v.wall_guard;
  jk["accesses"] = json::array();
  for (const Access& a : k.accesses) {
    json ja = {{"array", a.array},
               {"space", space_name(a.space)},
               {"kind", a.atomic  ? "atomic"
                        : a.write ? "write"
                                  : "read"},
               {"unit", a.unit},
               {"index", display_names(a.index.to_string())},
               {"line", a.pos.line},
               {"col", a.pos.col},
               {"phase", a.phase},
               {"text", a.text}};
    ja["guards"] = json::array();
    for (const Formula& g : a.guards)
      ja["guards"].push_back(display_names(g.to_string()));
    ja["loops"] = json::array();
    for (const LoopCtx& l : a.loops)
      ja["loops"].push_back({{"var", l.var},
                             {"lower", display_names(l.lower.to_string())},
                             {"count", display_names(l.count.to_string())},
                             {"step", display_names(l.step.to_string())},
                             {"geometric", l.geometric},
                             {"doubling", l.doubling},
                             {"barrier", l.barrier}});
    jk["accesses"].push_back(ja);
  }
  jk["census"] = json::array();
  for (const CensusEntry& c : k.census)
    jk["census"].push_back(
        {{"line", c.pos.line}, {"col", c.pos.col}, {"text", c.text}, {"how", c.how}});
  jk["values"] = json::array();
  for (const ValueEntry& u : k.values)
    jk["values"].push_back({{"line", u.pos.line},
                            {"col", u.pos.col},
                            {"unknown", u.unknown},
                            {"text", u.text},
                            {"why", u.why}});
  jk["unsupported"] = json::array();
  for (const Problem& p : k.unsupported)
    jk["unsupported"].push_back({{"line", p.pos.line}, {"col", p.pos.col}, {"what", p.what}});
  jk["questions"] = json::array();
  for (const QuestionResult& q : v.questions)
    jk["questions"].push_back({{"question", display_names(q.what)},
                               {"lmad1", display_names(q.l1)},
                               {"lmad2", display_names(q.l2)},
                               {"answer", answer_name(q.result.answer)},
                               {"summary", display_names(summary(q.result))},
                               {"ms", q.ms}});
  jk["assertions"] = json::array();
  for (const auto& [a, status] : v.assertions)
    jk["assertions"].push_back({{"line", a.pos.line},
                                {"col", a.pos.col},
                                {"kind", a.kind},
                                {"text", a.text},
                                {"status", status}});
  if (v.witness)
    jk["witness"] = {{"array", v.witness->array},
                     {"address", v.witness->address},
                     {"first", v.witness->first},
                     {"second", v.witness->second},
                     {"launch", v.witness->launch}};
  return jk;
}

/// One kernel's verdict for people, with its accesses (--accesses), problems,
/// assertions, witness and proofs (--explain).
void print_kernel(const std::string& file, const KernelSummary& k, const KernelVerdict& v,
                  bool show_accesses, bool explain_proofs) {
  std::printf("%s: kernel %s: %s", where(file, k.pos).c_str(), k.name.c_str(),
              verdict_name(v.verdict));
  std::printf(" (%s; %.0f ms)\n", display_names(v.reason).c_str(), v.ms);
  if (show_accesses) {
    for (size_t i = 0; i < k.accesses.size(); ++i) {
      const Access& a = k.accesses[i];
      std::printf("  #%zu %s %s %s[%s] (unit %lld bytes) phase %d", i,
                  a.atomic  ? "atomic"
                  : a.write ? "write "
                            : "read  ",
                  space_name(a.space), a.array.c_str(), display_names(a.index.to_string()).c_str(),
                  static_cast<long long>(a.unit), a.phase);
      for (const LoopCtx& l : a.loops)
        std::printf(" for %s", l.var.c_str());
      for (const Formula& g : a.guards)
        std::printf(" if %s", display_names(g.to_string()).c_str());
      std::printf("  (%s at %d:%d)\n", a.text.c_str(), a.pos.line, a.pos.col);
    }
    std::printf("  census: %zu node(s) that can touch memory\n", k.census.size());
    for (const CensusEntry& c : k.census)
      std::printf("    %d:%d %s: %s\n", c.pos.line, c.pos.col, c.text.c_str(),
                  c.how.empty() ? "UNACCOUNTED" : c.how.c_str());
    std::printf("  values: %zu not followed exactly\n", k.values.size());
    for (const ValueEntry& u : k.values)
      std::printf("    %d:%d %s: %s, %s\n", u.pos.line, u.pos.col, u.text.c_str(),
                  display_names(u.unknown).c_str(), u.why.c_str());
  }
  for (const Problem& p : k.unsupported)
    std::printf("%s: unsupported: %s\n", where(file, p.pos).c_str(), p.what.c_str());
  for (const auto& [a, status] : v.assertions)
    std::printf("%s: %s %s: %s\n", where(file, a.pos).c_str(), a.kind.c_str(), status.c_str(),
                a.text.c_str());
  if (v.witness) {
    std::printf("  race on %s[%lld]:\n    %s\n    %s\n  launch:", v.witness->array.c_str(),
                static_cast<long long>(v.witness->address), v.witness->first.c_str(),
                v.witness->second.c_str());
    for (const auto& [n, x] : v.witness->launch)
      std::printf(" %s=%lld", display_names(n).c_str(), static_cast<long long>(x));
    std::printf("\n");
  }
  if (explain_proofs)
    for (const QuestionResult& q : v.questions) {
      std::printf("  %s\n    %s\n    %s\n    %s (%.0f ms, %.0f ms over every attempt)\n",
                  display_names(q.what).c_str(), display_names(q.l1).c_str(),
                  display_names(q.l2).c_str(), display_names(summary(q.result)).c_str(),
                  q.result.ms, q.ms);
    }
}

} // namespace

static int tool_main(int argc, char** argv);

int main(int argc, char** argv) {
  return funmem::guarded_main("funmem-extract", [&] { return tool_main(argc, argv); });
}

static int tool_main(int argc, char** argv) {
  CLI::App app{"funmem-extract: prove CUDA kernels race-free (Clang front end + LMAD prover)"};
  std::string file;
  std::vector<std::string> assumes, clang_args;
  bool as_json = false, show_accesses = false, explain_proofs = false;
  unsigned timeout_ms = 1000;
  app.add_option("file", file, "a CUDA file (.cu)")->required();
  app.add_option("--assume", assumes,
                 "a launch fact, e.g. 'blockDim.x == 256' or 'n == gridDim.x * blockDim.x'");
  app.add_flag("--json", as_json, "one JSON object: every kernel's accesses, questions, verdict");
  app.add_flag("--accesses", show_accesses, "print each kernel's access summary");
  app.add_flag("--explain", explain_proofs, "print every question and its proof or witness");
  app.add_option("--timeout-ms", timeout_ms,
                 "prover budget per side condition, in ms of solver work (Z3 resource units, "
                 "the same on a loaded machine)");
  unsigned budget_ms = 10000;
  app.add_option("--budget-ms", budget_ms,
                 "budget per kernel in ms of solver work (default 10000, about 10 s here; 0: "
                 "none): questions not asked by then leave it unknown");
  app.add_option("--clang-arg", clang_args, "an extra argument for clang (repeatable)");
  bool equal_writes = false;
  app.add_flag("--equality-abstraction", equal_writes,
               "two writes of the same value to one address are no race (GPUVerify's option; "
               "plain CUDA says they race)");
  int warp_sync = 0;
  app.add_option("--warp-sync", warp_sync,
                 "threads of one warp of N run in lock-step (GPUVerify's option; 0: off, as "
                 "CUDA since Volta promises)");
  bool only_intra_group = false;
  app.add_flag("--only-intra-group", only_intra_group,
               "check races between threads of one block only (GPUVerify's option)");
  bool no_run = false;
  app.add_flag("--no-run", no_run,
               "never run a kernel: an unknown or unsupported verdict stays (by default the "
               "dynamic detector runs it at small launches to confirm a race)");
  std::vector<std::string> after_dashes;
  const int own = split_at_dashes(argc, argv, after_dashes);
  CLI11_PARSE(app, own, argv);
  clang_args.insert(clang_args.end(), after_dashes.begin(), after_dashes.end());

  bool ok = false;
  std::string code = read_file(file, &ok);
  if (!ok) {
    std::cerr << file << ": error: " << unreadable(file) << "\n";
    return 2;
  }
  CheckOptions opt;
  opt.race.prover.timeout_ms = timeout_ms;
  opt.race.budget_ms = budget_ms;
  opt.race.equal_writes = equal_writes;
  opt.race.warp_sync = warp_sync;
  opt.race.only_intra_group = only_intra_group;
  opt.assumes = assumes;
  opt.clang_args = clang_args;
  opt.run = !no_run;
  FileCheck r = check_cuda_file(code, file, opt);
  if (!r.errors.empty()) {
    for (const std::string& e : r.errors)
      std::cerr << e << "\n";
    return 2;
  }

  json out;
  out["file"] = file;
  out["assumptions"] = r.fact_texts;
  if (r.header.expect) out["header_expects"] = *r.header.expect;
  out["kernels"] = json::array();
  for (size_t ki = 0; ki < r.kernels.size(); ++ki) {
    const KernelSummary& k = r.kernels[ki];
    const KernelVerdict& v = r.verdicts[ki];
    if (as_json) {
      out["kernels"].push_back(kernel_json(k, v));
      continue;
    }
    print_kernel(file, k, v, show_accesses, explain_proofs);
  }
  if (as_json) std::printf("%s\n", out.dump(2).c_str());
  return r.all_race_free() ? 0 : 1;
}
