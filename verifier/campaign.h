// A fuzzing campaign (funmem-fuzz): generated FUN programs through every check
// (fuzz.h), or random LMAD questions against enumeration (prover_check.h), on several
// threads. Deterministic for a seed: program k is generated from program_seed(seed, k),
// whatever the number of jobs; the campaign stops at the first failure, shrinks it and
// reports it.
#pragma once

#include "analysis/pipeline.h"
#include "verifier/gen.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>

namespace funmem {

/// Where a running campaign stands.
struct CampaignProgress {
  double seconds = 0;
  int64_t done = 0, checks = 0, failures = 0;
};

struct CampaignOptions {
  double seconds = 10; // stop after this long
  int64_t count = -1;  // or after this many programs (when >= 0)
  int64_t first = 0;   // the number of the first program: a campaign run in parts
  uint64_t seed = 1;
  int jobs = 1;
  bool lmads = false; // LMAD questions instead of programs
  bool shrink = true; // shrink the failing program or question
  GenOptions gen;
  PassOptions passes; // a broken pass variant, to show that the campaign finds it
  /// Called every half second and once at the end (from another thread); may be empty.
  std::function<void(const CampaignProgress&)> progress;
};

struct CampaignResult {
  int64_t done = 0, checks = 0, failures = 0;
  double seconds = 0;
  int64_t found_index = -1; // the failing program's number, or -1
  std::string found_text;   // it (shrunk), with a header saying how it was found
  std::string report;       // the failure and its shrinking, for people (empty: none)
  /// Programs: how often sc exercised each rule of docs/short-circuit.md, summed over
  /// the campaign's programs (every rule of sc_rules() present, 0 when it never fired).
  std::map<std::string, int64_t> rules;
};

/// The rule-coverage table of a campaign (Markdown): per rule of sc_rules(), how often it
/// fired and what it is; `min` marks the rules below it.
std::string rule_coverage_table(const std::map<std::string, int64_t>& rules, int64_t min);

/// Runs the campaign; it prints nothing (the tool prints the progress and the report).
CampaignResult run_campaign(const CampaignOptions& opt);

/// The program of program seed `s`: the generated FUN program, or, for
/// `gen.funmem_percent` percent of the seeds, a FUNMEM mutant of it (mutate.h).
std::pair<std::string, Lang> campaign_program(uint64_t s, const GenOptions& gen);

/// The regression test of a found failure (for corpus/regress): its text, and for a
/// program the properties the correct sc refuses (`-- refuses:` lines).
std::string regression_entry(const CampaignOptions& opt, const CampaignResult& r);

} // namespace funmem
