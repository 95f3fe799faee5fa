// Benchmark of the non-overlap prover (the target: NW and LUD in under 50 ms each; Z3 alone
// on the whole membership problem as the baseline), and the soundness / completeness
// campaign over random pairs. Prints Markdown tables; results go to docs/prover.md.
//   funmem-bench-prove [--z3-timeout-ms N] [--pairs N] [--symbolic N] [--repeat R] FILE...
#include "analysis/prover.h"
#include "verifier/prover_check.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

using namespace funmem;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

const char* sat_name(SatResult r) {
  return r == SatResult::Unsat ? "disjoint" : r == SatResult::Sat ? "overlap" : "unknown";
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"funmem-bench-prove: prover vs Z3 alone, and the soundness campaign"};
  std::vector<std::string> files;
  unsigned z3_timeout = 60000;
  int pairs = 100000, symbolic = 2000, repeat = 5;
  app.add_option("files", files, ".prove files (batch syntax with # expect: lines)");
  app.add_option("--z3-timeout-ms", z3_timeout, "time limit of the Z3-alone baseline");
  app.add_option("--pairs", pairs, "random concrete pairs for the soundness campaign");
  app.add_option("--symbolic", symbolic, "random symbolic pairs for the soundness campaign");
  app.add_option("--repeat", repeat, "prover runs per obligation (the minimum is reported)");
  CLI11_PARSE(app, argc, argv);

  if (!files.empty()) {
    std::cout << "| obligation | expected | prover | prover ms (min of " << repeat
              << ") | Z3 queries | Z3 alone | Z3 alone ms |\n|---|---|---|---|---|---|---|\n";
  }
  for (const std::string& f : files) {
    std::ifstream in(f);
    std::string line, expect;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      if (line.rfind("# expect: ", 0) == 0) expect = line.substr(10);
      if (line.empty() || line[0] == '#') continue;
      Diagnostic d;
      auto q = parse_prove_line(line, &d);
      if (!q) {
        std::cerr << f << ":" << lineno << ": error: " << d.message << "\n";
        return 2;
      }
      double best = 1e18;
      ProveResult r;
      for (int k = 0; k < repeat; ++k) {
        r = prove_disjoint(q->l1, q->l2, q->facts);
        best = std::min(best, r.ms);
      }
      Solver s(q->facts, z3_timeout);
      double t0 = now_ms();
      SatResult z = z3_membership(q->l1, q->l2, s, z3_timeout);
      double zt = now_ms() - t0;
      std::string name = f.substr(f.find_last_of('/') + 1) + ":" + std::to_string(lineno);
      std::printf("| %s | %s | %s | %.1f | %d | %s | %.0f |\n", name.c_str(), expect.c_str(),
                  answer_name(r.answer), best, r.stats.z3_calls, sat_name(z), zt);
      std::fflush(stdout);
      expect.clear();
    }
  }

  if (pairs > 0 || symbolic > 0) {
    SoundnessReport sosi, full, sym;
    ProverOptions sosi_only;
    sosi_only.enumerate_concrete = false;
    sosi_only.membership = false;
    sosi_only.witness_search = false;
    ProverOptions z3_decides;
    z3_decides.enumerate_concrete = false;
    double t0 = now_ms();
    for (int k = 0; k < pairs; ++k) {
      LmadQuestion q = random_concrete_question(static_cast<uint64_t>(k));
      Solver s(q.facts);
      check_answer(q, prove_disjoint(q.l1, q.l2, s, sosi_only), false, sosi);
    }
    double t1 = now_ms();
    int full_pairs = pairs / 10;
    for (int k = 0; k < full_pairs; ++k) {
      LmadQuestion q = random_concrete_question(static_cast<uint64_t>(k));
      check_answer(q, prove_disjoint(q.l1, q.l2, q.facts, z3_decides), true, full);
    }
    double t2 = now_ms();
    for (int k = 0; k < symbolic; ++k) {
      LmadQuestion q = random_symbolic_question(static_cast<uint64_t>(k));
      check_answer(q, prove_disjoint(q.l1, q.l2, q.facts), false, sym);
    }
    double t3 = now_ms();
    std::cout << "\n| campaign | pairs | disjoint | overlap | unknown | truly overlapping | "
                 "failures | seconds |\n|---|---|---|---|---|---|---|---|\n";
    auto row = [](const char* name, const SoundnessReport& r, double ms) {
      std::printf("| %s | %d | %d | %d | %d | %d | %zu | %.1f |\n", name, r.questions, r.disjoint,
                  r.overlap, r.unknown, r.brute_overlaps, r.failures.size(), ms / 1000);
    };
    row("concrete, SOSI steps only", sosi, t1 - t0);
    row("concrete, SOSI then Z3 (no enumeration)", full, t2 - t1);
    row("symbolic (n, m bounded), full prover", sym, t3 - t2);
    for (auto* r : {&sosi, &full, &sym})
      for (auto& f : r->failures)
        std::cout << "FAILURE: " << f << "\n";
    if (!sosi.failures.empty() || !full.failures.empty() || !sym.failures.empty()) return 1;
  }
  return 0;
}
