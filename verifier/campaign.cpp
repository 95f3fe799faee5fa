// A fuzzing campaign (see campaign.h).
#include "verifier/campaign.h"

#include "analysis/short_circuit.h"

#include "verifier/fuzz.h"
#include "verifier/mutate.h"
#include "verifier/prover_check.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace funmem {

namespace {

size_t lines(const std::string& s) {
  return split_lines(s).size();
}

/// The counts of `fired`, with every rule of sc_rules() (0 when it never fired).
std::map<std::string, int64_t> with_every_rule(const std::map<std::string, int64_t>& fired) {
  std::map<std::string, int64_t> out;
  ScReport none;
  count_sc_rules(none, out);
  for (const auto& [id, n] : fired)
    out[id] += n;
  return out;
}

/// The program of seed s: a generated FUN program, or (funmem_percent of the time, chosen
/// by the seed alone) its FUNMEM mutant.

} // namespace

std::pair<std::string, Lang> campaign_program(uint64_t s, const GenOptions& gen) {
  std::string text = generate_fun(s, gen);
  if (std::mt19937_64(s ^ 0x66756e6d656dULL)() % 100 <
      static_cast<uint64_t>(std::max(0, gen.funmem_percent)))
    if (auto m = funmem_mutant(text, s)) return {m->text, Lang::FunMem};
  return {text, Lang::Fun};
}

CampaignResult run_campaign(const CampaignOptions& opt) {
  std::string broken_text = broken_variants_text(opt.passes);
  if (!broken_text.empty()) broken_text = " " + broken_text;
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  std::atomic<int64_t> next{opt.first}, done{0}, checks{0}, failures{0};
  std::mutex mu;
  bool reported = false;
  std::string found_text; // the (shrunk) failing program with its header
  std::string report;     // the failure and its shrinking, for people
  int64_t found_index = -1;
  std::map<std::string, int64_t> rules; // summed over the programs (under mu)
  auto add_rules = [&](const std::map<std::string, int64_t>& more) {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& [id, n] : more)
      rules[id] += n;
  };
  auto worker = [&] {
    for (;;) {
      int64_t k = next.fetch_add(1);
      if (opt.count >= 0 ? k >= opt.first + opt.count : elapsed() >= opt.seconds) return;
      if (failures.load() > 0) return;
      uint64_t s = program_seed(opt.seed, static_cast<uint64_t>(k));
      if (opt.lmads) {
        LmadQuestion q = lmad_fuzz_question(s);
        LmadFuzzOutcome o = fuzz_lmad(q, opt.passes.sc.prover);
        checks += o.checks;
        ++done;
        if (o.ok) continue;
        ++failures;
        std::lock_guard<std::mutex> lock(mu);
        if (reported) return;
        reported = true;
        report = "\nFAILURE in question " + std::to_string(k) + " (seed " + std::to_string(s) +
                 "):\n" + o.detail;
        if (opt.shrink) {
          int steps = 0;
          q = shrink_lmad(q, &steps, opt.passes.sc.prover);
          report += "\nshrunk in " + std::to_string(steps) + " steps to:\n" +
                    fuzz_lmad(q, opt.passes.sc.prover).detail;
        }
        found_text = "# found by funmem-fuzz --mode lmads --seed " + std::to_string(opt.seed) +
                     " (question " + std::to_string(k) + ")" + broken_text + "\n" +
                     prove_corpus_entry(q);
        found_index = k;
        return;
      }
      auto [text, lang] = campaign_program(s, opt.gen);
      FuzzOutcome o = fuzz_program(text, opt.passes, lang);
      checks += o.checks;
      ++done;
      add_rules(o.rules);
      if (!o.ok) {
        ++failures;
        std::lock_guard<std::mutex> lock(mu);
        if (reported) return;
        reported = true;
        report = "\nFAILURE in program " + std::to_string(k) + " (program seed " +
                 std::to_string(s) + "): check '" + o.check + "'\n" + o.detail + "\n" + text;
        std::string small = text;
        if (opt.shrink) {
          int steps = 0;
          small = shrink(text, o, &steps, opt.passes, lang);
          FuzzOutcome again = fuzz_program(small, opt.passes, lang);
          report += "\nshrunk in " + std::to_string(steps) + " steps from " +
                    std::to_string(lines(text)) + " to " + std::to_string(lines(small)) +
                    " lines; it fails check '" + again.check + "':\n" + again.detail + "\n" + small;
          o = again;
        }
        std::string header = "-- found by funmem-fuzz --seed " + std::to_string(opt.seed) +
                             " (program " + std::to_string(k) + ")" + broken_text + ": check '" +
                             o.check + "' failed:\n";
        for (const std::string& l : split_lines(o.detail))
          header += "--   " + l + "\n";
        found_text = header + small;
        found_index = k;
        return;
      }
    }
  };
  std::vector<std::thread> ts;
  ts.reserve(static_cast<size_t>(std::max(0, opt.jobs)));
  for (int j = 0; j < opt.jobs; ++j)
    ts.emplace_back(worker);
  // Progress every half second; the workers' end wakes it at once (the run's time is not
  // rounded up to the next tick).
  std::mutex progress_mutex;
  std::condition_variable progress_cv;
  bool workers_done = false;
  std::thread progress([&] {
    std::unique_lock<std::mutex> lock(progress_mutex);
    for (bool last = false; !last;) {
      last =
          progress_cv.wait_for(lock, std::chrono::milliseconds(500), [&] { return workers_done; });
      if (opt.progress) opt.progress({elapsed(), done.load(), checks.load(), failures.load()});
    }
  });
  for (std::thread& t : ts)
    t.join();
  {
    std::lock_guard<std::mutex> lock(progress_mutex);
    workers_done = true;
  }
  progress_cv.notify_one();
  progress.join();
  CampaignResult r;
  r.done = done.load();
  r.checks = checks.load();
  r.failures = failures.load();
  r.seconds = elapsed();
  r.found_index = found_index;
  r.found_text = std::move(found_text);
  r.report = std::move(report);
  if (!opt.lmads) r.rules = with_every_rule(rules);
  return r;
}

std::string rule_coverage_table(const std::map<std::string, int64_t>& rules, int64_t min) {
  std::string s = "| rule of docs/short-circuit.md | fired | what |\n|---|---:|---|\n";
  std::set<std::string> listed;
  auto row = [&](const std::string& id, const std::string& what) {
    auto it = rules.find(id);
    int64_t n = it == rules.end() ? 0 : it->second;
    s += "| " + id + " | " + std::to_string(n) +
         (n < min ? " (below " + std::to_string(min) + ")" : "") + " | " + what + " |\n";
    listed.insert(id);
  };
  for (const ScRule& r : sc_rules())
    row(r.id, r.what);
  for (const auto& [id, n] : rules) // an id sc reports that the list lacks
    if (!listed.count(id)) row(id, "(not in sc_rules())");
  return s;
}

std::string regression_entry(const CampaignOptions& opt, const CampaignResult& r) {
  // The regression test runs the correct passes: name what their sc refuses.
  std::string text = r.found_text;
  if (!opt.lmads)
    for (const std::string& p : sc_refusals(r.found_text))
      text += "-- refuses: " + p + "\n";
  return text;
}

} // namespace funmem
