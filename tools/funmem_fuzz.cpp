// funmem-fuzz: generates random well-typed FUN programs and runs every check on each
// (verifier/campaign.h). Deterministic for a seed: program k of a campaign is generated from
// program_seed(seed, k), whatever the number of jobs. Exit 1 when a check failed.
#include "analysis/pipeline.h"
#include "tools/guarded_main.h"
#include "verifier/campaign.h"
#include "verifier/fuzz.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace funmem;

static int tool_main(int argc, char** argv);

namespace {

/// A campaign's part for --coverage-json: which programs ran and how often each rule fired.
std::string coverage_json(const CampaignOptions& o, const CampaignResult& r) {
  nlohmann::json j;
  j["seed"] = o.seed;
  j["first"] = o.first;
  j["programs"] = r.done;
  j["failures"] = r.failures;
  j["funmem_percent"] = o.gen.funmem_percent;
  j["out_of_bounds"] = o.gen.out_of_bounds;
  j["rules"] = r.rules;
  return j.dump(1) + "\n";
}

/// Adds the rule counts of an earlier part (a --coverage-json file) to `rules` and its
/// programs to `programs`; an error message when the file cannot be read.
std::string add_part(const std::string& path, std::map<std::string, int64_t>& rules,
                     int64_t& programs) {
  std::ifstream in(path);
  if (!in) return path + ": error: cannot open the file";
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("rules") || !j["rules"].is_object() ||
      !j.contains("programs") || !j["programs"].is_number_integer())
    return path + ": error: not a --coverage-json file (an object with 'programs' and 'rules')";
  for (const auto& [id, n] : j["rules"].items()) {
    if (!n.is_number_integer() || n.get<int64_t>() < 0)
      return path + ": error: the count of rule '" + id + "' is not a non-negative integer";
    rules[id] += n.get<int64_t>();
  }
  programs += j["programs"].get<int64_t>();
  return "";
}

/// Prints the rule-coverage table (with the counts of earlier parts added) when asked for;
/// returns how many rules fired fewer than `min_rule` times, or -1 when a part is unreadable.
int report_rules(const CampaignResult& r, const std::vector<std::string>& parts, bool coverage,
                 int64_t min_rule) {
  std::map<std::string, int64_t> rules = r.rules;
  int64_t programs = r.done;
  for (const std::string& p : parts)
    if (std::string e = add_part(p, rules, programs); !e.empty()) {
      std::fprintf(stderr, "%s\n", e.c_str());
      return -1;
    }
  if (!parts.empty())
    std::printf("with %zu earlier part(s): %lld programs in all\n", parts.size(),
                static_cast<long long>(programs));
  int below = 0;
  for (const auto& [id, n] : rules)
    below += n < min_rule;
  if (coverage || min_rule > 0) {
    std::printf("\n%s", rule_coverage_table(rules, min_rule).c_str());
    if (below > 0)
      std::printf("%d rules fired fewer than %lld times\n", below,
                  static_cast<long long>(min_rule));
  }
  return below;
}

} // namespace

int main(int argc, char** argv) {
  return funmem::guarded_main("funmem-fuzz", [&] { return tool_main(argc, argv); });
}

static int tool_main(int argc, char** argv) {
  CLI::App app{"funmem-fuzz: property-based fuzzing of the FUN/FUNMEM toolkit"};
  double seconds = 10;
  uint64_t seed = 1;
  int jobs = 1;
  int64_t count = -1;
  std::string mode = "programs", save;
  GenOptions gen;
  app.add_option("--seconds", seconds, "stop after this many seconds");
  app.add_option("--count", count, "stop after this many programs (instead of --seconds)");
  int64_t first = 0;
  app.add_option("--first", first,
                 "start at program K of the campaign (a long campaign run in parts: programs "
                 "K to K+count-1 of the seed, as one run would generate them)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--seed", seed, "campaign seed");
  app.add_option("--jobs", jobs, "worker threads")->check(CLI::Range(1, 64));
  app.add_option("--mode", mode,
                 "programs: random FUN programs through the pipeline; lmads: random LMAD "
                 "pairs, the prover's answers against enumeration")
      ->check(CLI::IsMember({"programs", "lmads"}));
  app.add_option("--max-stmts", gen.max_stmts, "statements per body")->check(CLI::Range(1, 50));
  app.add_option("--max-depth", gen.max_depth, "nesting depth")->check(CLI::Range(0, 6));
  app.add_option("--max-size", gen.max_size, "largest size in data sets")->check(CLI::Range(1, 64));
  app.add_option("--boundary-percent", gen.boundary_percent,
                 "percent of programs whose one data set gives every array with boundary values "
                 "(the ends of i32 and i64, 0, -1, fractions, sizes 0 to 3; default 25)")
      ->check(CLI::Range(0, 100));
  app.add_option("--sized-percent", gen.sized_percent,
                 "percent of programs with a parameter of size (za - zb) * n whose normal "
                 "form's terms leave i64 in some data sets (default 0; slow: nonlinear proofs)")
      ->check(CLI::Range(0, 100));
  app.add_option("--funmem-percent", gen.funmem_percent,
                 "percent of programs checked as FUNMEM mutants: a block made smaller, a layout "
                 "moved, arrays sharing a block, a kernel's allocation moved out of it, an "
                 "array placed beside another or before its update, an array added to a "
                 "loop's or an if's block (default 0)")
      ->check(CLI::Range(0, 100));
  app.add_flag("--out-of-bounds", gen.out_of_bounds,
               "generate programs that must end in a bounds error, or in an assume that gives an "
               "update's bounds too late (every stage must end with it)");
  app.add_option("--save", save, "write the first failing program to this file");
  bool coverage = false;
  int64_t min_rule = 0;
  app.add_flag("--coverage", coverage,
               "print the rule-coverage table: how often each rule of docs/short-circuit.md fired");
  app.add_option("--min-rule-count", min_rule,
                 "fail when a rule fired fewer times (implies --coverage)")
      ->check(CLI::NonNegativeNumber);
  std::string coverage_out;
  app.add_option("--coverage-json", coverage_out,
                 "write the rule counts of this run (a part of a campaign) to this file");
  std::vector<std::string> parts;
  app.add_option("--add-coverage", parts,
                 "add the rule counts of earlier parts (--coverage-json files) to the table and "
                 "to --min-rule-count")
      ->check(CLI::ExistingFile);
  std::vector<std::string> broken;
  app.add_option("--broken", broken,
                 "switch on a deliberately broken pass variant (to show the fuzzer finds it)")
      ->check(CLI::IsMember(broken_variant_names()));
  std::string regress_dir;
  app.add_option("--regress-dir", regress_dir,
                 "write the shrunk failing program here (corpus/regress keeps it as a test)");
  bool no_shrink = false;
  app.add_flag("--no-shrink", no_shrink, "report the failing program as generated");
  bool print = false;
  app.add_flag("--print", print,
               "print the program of program seed SEED (the --seed value; a FUNMEM mutant where "
               "--funmem-percent makes it one) and exit");
  CLI11_PARSE(app, argc, argv);
  PassOptions passes;
  for (const std::string& b : broken)
    set_broken_variant(passes, b);
  if (print) {
    std::fputs(campaign_program(seed, gen).first.c_str(), stdout);
    return 0;
  }
  CampaignOptions copt;
  copt.seconds = seconds;
  copt.count = count;
  copt.first = first;
  copt.seed = seed;
  copt.jobs = jobs;
  copt.lmads = mode == "lmads";
  copt.shrink = !no_shrink;
  copt.gen = gen;
  copt.passes = passes;
  const char* what = mode == "lmads" ? "questions" : "programs";
  copt.progress = [what](const CampaignProgress& p) {
    std::fprintf(stderr, "\r%.1f s: %lld %s (%.0f/s), %lld checks passed, %lld failures", p.seconds,
                 static_cast<long long>(p.done), what,
                 static_cast<double>(p.done) / std::max(p.seconds, 1e-9),
                 static_cast<long long>(p.checks), static_cast<long long>(p.failures));
  };

  CampaignResult r = run_campaign(copt);
  std::fputs(r.report.c_str(), stdout);
  if (r.found_index >= 0) {
    if (!save.empty()) std::ofstream(save) << r.found_text;
    if (!regress_dir.empty()) {
      std::string path = regress_dir + "/fuzz-" + std::to_string(seed) + "-" +
                         std::to_string(r.found_index) + (mode == "lmads" ? ".prove" : ".fun");
      std::ofstream(path) << regression_entry(copt, r);
      std::printf("written to %s\n", path.c_str());
    }
  }
  std::fprintf(stderr, "\n");
  std::printf("%lld %s in %.1f s (%.0f/s), %lld checks passed, %lld failures\n",
              static_cast<long long>(r.done), mode == "lmads" ? "questions" : "programs", r.seconds,
              static_cast<double>(r.done) / std::max(r.seconds, 1e-9),
              static_cast<long long>(r.checks), static_cast<long long>(r.failures));
  if (!coverage_out.empty() && mode == "programs")
    std::ofstream(coverage_out) << coverage_json(copt, r);
  if (mode != "programs") return r.failures > 0 ? 1 : 0;
  int below = report_rules(r, parts, coverage, min_rule);
  if (below < 0) return 2;
  return r.failures > 0 || below > 0 ? 1 : 0;
}
