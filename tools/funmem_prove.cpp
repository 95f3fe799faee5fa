// funmem-prove: decide non-overlap of two symbolic LMADs under facts.
//   funmem-prove [--assume FACT]... [--timeout-ms N] [--json] [--explain] LMAD1 LMAD2
//   funmem-prove --batch FILE [--json]     (lines: LMAD1 ; LMAD2 ; FACT, FACT, ...)
// Exit: single query 0 disjoint / 1 not proved / 2 usage error; batch 0 unless a line
// is malformed (2).
#include "analysis/prover.h"
#include "support/files.h"
#include "tools/guarded_main.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace funmem;
using nlohmann::json;

namespace {

json node_json(const ProofNode& n) {
  json j = {{"pair", n.pair}, {"step", n.step}, {"proved", n.proved}};
  j["children"] = json::array();
  for (auto& c : n.children)
    j["children"].push_back(node_json(c));
  return j;
}

json result_json(const ProveResult& r, const std::string& l1, const std::string& l2,
                 const std::vector<std::string>& facts) {
  json j = {{"answer", answer_name(r.answer)},
            {"method", r.method},
            {"reason", r.reason},
            {"lmad1", l1},
            {"lmad2", l2},
            {"facts", facts},
            {"steps", r.steps},
            {"ms", r.ms},
            {"stats",
             {{"queries", r.stats.queries},
              {"z3_calls", r.stats.z3_calls},
              {"z3_unknown", r.stats.z3_unknown},
              {"wall_guard", r.stats.wall_guard},
              {"cache_hits", r.stats.cache_hits},
              {"z3_work", r.stats.z3_work},
              {"z3_ms", r.stats.z3_ms}}}};
  j["proof"] = r.proof ? node_json(*r.proof) : json(nullptr);
  if (r.witness)
    j["witness"] = {{"assignment", r.witness->assignment},
                    {"point", r.witness->point},
                    {"index1", r.witness->index1},
                    {"index2", r.witness->index2}};
  else
    j["witness"] = nullptr;
  return j;
}

/// Parses one command-line field; on error prints `where:1:col: error: ...`.
template <class T, class F>
bool field(const std::string& text, const std::string& where, F parse, T& out) {
  Diagnostic d;
  auto v = parse(text, &d);
  if (!v) {
    std::cerr << where << ":1:" << std::max(d.pos.col, 1) << ": error: " << d.message << "\n";
    return false;
  }
  out = *v;
  return true;
}

void print(const ProveResult& r, const ProveQuery& q, bool as_json, bool expl, int line) {
  if (as_json) {
    json j = result_json(r, q.text1, q.text2, q.fact_texts);
    if (line) j["line"] = line;
    std::cout << j.dump() << "\n";
  } else if (expl) {
    std::cout << explain(r);
  } else {
    std::cout << summary(r) << "\n";
  }
}

} // namespace

static int tool_main(int argc, char** argv);

int main(int argc, char** argv) {
  return funmem::guarded_main("funmem-prove", [&] { return tool_main(argc, argv); });
}

static int tool_main(int argc, char** argv) {
  CLI::App app{"funmem-prove: decide whether two LMADs (as sets of points) overlap"};
  std::vector<std::string> lmads, assumes;
  std::string batch;
  ProverOptions opt;
  bool as_json = false, expl = false;
  app.add_option("lmads", lmads, "two LMADs, e.g. 'i*b + {(i+1 : n*b-b), (b+1 : n)}'")
      ->expected(0, 2);
  app.add_option("--assume", assumes, "a fact, e.g. 'n == q*b + 1' (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--timeout-ms", opt.timeout_ms, "Z3 time limit per side condition (ms)")
      ->check(CLI::Range(1u, 600000u));
  app.add_option("--batch", batch, "a file of queries 'LMAD1 ; LMAD2 ; FACT, ...' ('-' = stdin)");
  app.add_flag("--json", as_json, "print JSON (one object per query)");
  app.add_flag("--explain", expl, "print the whole proof or witness");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  opt.search_timeout_ms = std::max(opt.search_timeout_ms, opt.timeout_ms);
  if (batch.empty() == (lmads.size() != 2)) {
    if (!batch.empty() || lmads.size() != 2)
      std::cerr << "funmem-prove: error: give two LMADs, or --batch FILE (not both)\n";
    return 2;
  }
  if (batch.empty()) {
    ProveQuery q;
    q.text1 = lmads[0];
    q.text2 = lmads[1];
    if (!field(lmads[0], "<LMAD1>", parse_sym_lmad, q.l1) ||
        !field(lmads[1], "<LMAD2>", parse_sym_lmad, q.l2))
      return 2;
    for (size_t k = 0; k < assumes.size(); ++k) {
      Formula f;
      if (!field(assumes[k], "<assume " + std::to_string(k + 1) + ">", parse_fact, f)) return 2;
      q.facts.push_back(f);
      q.fact_texts.push_back(assumes[k]);
    }
    ProveResult r = prove_disjoint(q.l1, q.l2, q.facts, opt);
    print(r, q, as_json, expl, 0);
    return r.answer == Answer::Disjoint ? 0 : 1;
  }
  std::ifstream file;
  if (batch != "-") {
    file.open(batch);
    if (!file || std::filesystem::is_directory(batch)) {
      std::cerr << batch << ": error: " << unreadable(batch) << "\n";
      return 2;
    }
  }
  std::istream& in = batch == "-" ? std::cin : file;
  std::string line;
  int lineno = 0;
  bool malformed = false;
  while (std::getline(in, line)) {
    ++lineno;
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    Diagnostic d;
    auto q = parse_prove_line(line, &d);
    if (!q) {
      std::cerr << batch << ":" << lineno << ":" << d.pos.col << ": error: " << d.message << "\n";
      malformed = true;
      continue;
    }
    print(prove_disjoint(q->l1, q->l2, q->facts, opt), *q, as_json, expl, lineno);
  }
  return malformed ? 2 : 0;
}
