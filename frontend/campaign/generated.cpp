// The generated-kernel campaign (see generator.h): static verdicts of generated kernels
// against the dynamic detector's runs at the generator's launches.
#include "frontend/campaign/generator.h"

#include "frontend/check.h"
#include "frontend/dynamic/confirm.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace funmem::frontend {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

FileCheck static_check(const std::string& src, const std::string& file,
                       const RaceCampaignOptions& opt) {
  return check_cuda_file(src, file, campaign_check_options(opt));
}

/// Whether a verdict's stated assumptions allow the launch: one assuming size 1 in y
/// (z) is compared only at launches of size 1 there.
bool allowed(const KernelVerdict& v, const Launch& l) {
  const std::string key = "assumes blocks and grid of size 1 in ";
  size_t at = v.reason.find(key);
  if (at == std::string::npos) return true;
  std::string dims = v.reason.substr(at + key.size(), v.reason.find(" (", at) - at - key.size());
  for (int d = 1; d < 3; ++d)
    if (dims.find(d == 1 ? 'y' : 'z') != std::string::npos && (l.block[d] != 1 || l.grid[d] != 1))
      return false;
  return true;
}

std::string launch_text(const Launch& l) {
  std::ostringstream o;
  o << "block " << l.block[0] << "x" << l.block[1] << "x" << l.block[2] << ", grid " << l.grid[0]
    << "x" << l.grid[1] << "x" << l.grid[2];
  for (const auto& [n, v] : l.args)
    o << ", " << n << "=" << v;
  return o.str();
}

/// Writes a failure's source to the regress folder.
void write_failure(const Failure& f, const RaceCampaignOptions& opt, size_t index) {
  if (opt.regress_dir.empty()) return;
  fs::create_directories(opt.regress_dir);
  fs::path out = fs::path(opt.regress_dir) / (f.file + "-" + f.kind.substr(0, f.kind.find(' ')) +
                                              "-" + std::to_string(index) + ".cu");
  std::ofstream(out) << "// funmem-race-fuzz --generate: " << f.kind << " (" << f.detail << ")\n"
                     << f.source;
}

/// A soundness failure of one kernel: its source shrunk while the kernel is still
/// static race-free and the detector still observes a race at `launch`.
std::string shrink(const GeneratedKernel& k, const Launch& launch, const RaceCampaignOptions& opt,
                   const fs::path& dir) {
  int attempt = 0;
  return shrink_kernel_source(k.source, [&](const std::string& src) {
    FileCheck fc = static_check(src, k.name + ".cu", opt);
    bool free = false;
    for (size_t i = 0; i < fc.kernels.size(); ++i)
      free = free || (fc.kernels[i].name == k.name && fc.verdicts[i].verdict == Verdict::RaceFree);
    if (!free) return false;
    RaceDetector d(src, k.name + ".cu", (dir / ("shrink-" + std::to_string(attempt++))).string());
    if (!d.errors().empty()) return false;
    RaceJob j;
    j.launch = launch;
    const auto rr = d.run({j}, opt.seconds);
    const JobResult* r = result_for(rr, 0, k.name);
    return r && !r->races.empty();
  });
}

/// Each static witness's run: a race confirms it, none is an unconfirmed witness.
void confirm_witnesses(const std::vector<GeneratedKernel>& ks, const FileCheck& fc,
                       const std::vector<RaceJob>& jobs,
                       const std::vector<std::pair<size_t, size_t>>& witness_jobs,
                       const std::vector<std::vector<JobResult>>& rs,
                       const RaceCampaignOptions& opt, GeneratedCampaignResult& res) {
  for (const auto& [i, j] : witness_jobs) {
    const JobResult* r = result_for(rs, j, ks[i].name);
    if (!r || !r->finished || !r->errors.empty()) continue;
    if (!r->races.empty()) {
      ++res.witnesses;
      continue;
    }
    const RaceWitness& w = *fc.verdicts[i].witness;
    Failure f;
    f.file = ks[i].name;
    f.kind = "unconfirmed witness";
    f.what = "generated kernel " + ks[i].name;
    f.detail = "the static witness's launch ran without a race: " + w.first + " / " + w.second +
               "; " + launch_text(jobs[j].launch);
    f.source = ks[i].source;
    write_failure(f, opt, res.failures.size());
    res.failures.push_back(f);
  }
}

/// generator_launches(), every second one running its blocks from the last to the first
/// (CUDA does not order blocks).
std::vector<Launch> campaign_launches() {
  std::vector<Launch> launches = generator_launches();
  for (size_t j = 1; j < launches.size(); j += 2)
    launches[j].args["@@reverse"] = 1;
  return launches;
}

GeneratedCampaignResult run_batch(const std::vector<GeneratedKernel>& ks, const std::string& file,
                                  const RaceCampaignOptions& opt) {
  GeneratedCampaignResult res;
  auto generator_failure = [&](const std::string& kernel, const std::string& detail,
                               const std::string& source) {
    Failure f;
    f.file = kernel;
    f.kind = "generator";
    f.what = "generated kernel " + kernel;
    f.detail = detail;
    f.source = source;
    write_failure(f, opt, res.failures.size());
    res.failures.push_back(f);
  };
  std::string source;
  for (const GeneratedKernel& k : ks)
    source += k.source + "\n";
  auto ts = Clock::now();
  FileCheck fc = static_check(source, file, opt);
  res.static_seconds = since(ts);
  if (!fc.parsed || fc.kernels.size() != ks.size()) {
    // A kernel that does not compile: found by checking each alone, the others go on.
    if (ks.size() == 1) {
      generator_failure(ks[0].name, fc.errors.empty() ? "no kernel found" : fc.errors.front(),
                        ks[0].source);
      return res;
    }
    for (const GeneratedKernel& k : ks)
      res.add(run_batch({k}, k.name + ".cu", opt));
    return res;
  }
  fs::path work = fs::path(opt.work_dir) / fs::path(file).stem();
  auto tc = Clock::now();
  RaceDetector det(source, file, work.string());
  res.compile_seconds = since(tc);
  if (!det.errors().empty()) {
    if (ks.size() == 1) {
      generator_failure(ks[0].name, "the detector cannot build it: " + det.errors().front(),
                        ks[0].source);
      return res;
    }
    for (const GeneratedKernel& k : ks)
      res.add(run_batch({k}, k.name + ".cu", opt));
    return res;
  }
  std::vector<Launch> launches = campaign_launches();
  std::vector<RaceJob> jobs;
  for (const Launch& l : launches) {
    RaceJob j;
    j.launch = l;
    jobs.push_back(j);
  }
  // One job per static witness (every kernel runs in it; only its own is compared).
  std::vector<std::pair<size_t, size_t>> witness_jobs; // kernel, job
  for (size_t i = 0; i < ks.size(); ++i)
    if (fc.verdicts[i].verdict == Verdict::Race && fc.verdicts[i].witness) {
      RaceJob j;
      j.launch = witness_launch(*fc.verdicts[i].witness);
      j.launch.elements = std::max<int64_t>(j.launch.elements, kGeneratedElements);
      int64_t threads = 1;
      for (int d = 0; d < 3; ++d)
        threads *= j.launch.block[d] * j.launch.grid[d];
      if (threads > 4096) continue;
      witness_jobs.push_back({i, jobs.size()});
      jobs.push_back(j);
    }
  auto td = Clock::now();
  std::vector<std::vector<JobResult>> rs = det.run(jobs, opt.seconds);
  res.dynamic_seconds = since(td);
  for (size_t i = 0; i < ks.size(); ++i) {
    const GeneratedKernel& k = ks[i];
    const KernelVerdict& v = fc.verdicts[i];
    ++res.kernels;
    bool free = v.verdict == Verdict::RaceFree, observed = false;
    res.race_free += free;
    res.race += v.verdict == Verdict::Race;
    res.unknown += v.verdict == Verdict::Unknown;
    res.unsupported += v.verdict == Verdict::Unsupported;
    bool reported = false;
    for (size_t j = 0; j < launches.size(); ++j) {
      const JobResult* r = result_for(rs, j, k.name);
      if (!r || !r->finished || !r->errors.empty()) {
        if (!reported)
          generator_failure(k.name,
                            "at " + launch_text(launches[j]) + ": " +
                                (r && !r->errors.empty() ? r->errors.front()
                                                         : std::string("the run did not finish")),
                            k.source);
        reported = true;
        continue;
      }
      if (!allowed(v, launches[j])) continue;
      ++res.runs;
      if (r->races.empty()) continue;
      ++res.observed;
      observed = true;
      if (free && res.failures.size() < 50) {
        Failure f;
        f.file = k.name;
        f.kind = "soundness";
        f.what = "generated kernel " + k.name;
        f.detail = "static race-free, observed at " + launch_text(launches[j]) + ": " +
                   r->races[0].object + " byte " + std::to_string(r->races[0].byte) + ": " +
                   r->races[0].first + " / " + r->races[0].second;
        f.source = shrink(k, launches[j], opt, work);
        write_failure(f, opt, res.failures.size());
        res.failures.push_back(f);
        free = false; // one failure per kernel
      }
    }
    for (const std::string& c : k.constructs) {
      auto& row = res.coverage[c];
      ++row[0];
      row[1] += v.verdict == Verdict::RaceFree;
      row[2] += observed;
    }
  }
  confirm_witnesses(ks, fc, jobs, witness_jobs, rs, opt, res);
  return res;
}

} // namespace

void GeneratedCampaignResult::add(const GeneratedCampaignResult& o) {
  kernels += o.kernels;
  race_free += o.race_free;
  race += o.race;
  unknown += o.unknown;
  unsupported += o.unsupported;
  runs += o.runs;
  observed += o.observed;
  witnesses += o.witnesses;
  for (const auto& [c, row] : o.coverage)
    for (size_t i = 0; i < row.size(); ++i)
      coverage[c][i] += row[i];
  failures.insert(failures.end(), o.failures.begin(), o.failures.end());
  static_seconds += o.static_seconds;
  compile_seconds += o.compile_seconds;
  dynamic_seconds += o.dynamic_seconds;
}

GeneratedCampaignResult generated_campaign(const GeneratedCampaignOptions& opt) {
  GeneratedCampaignResult res;
  auto t0 = Clock::now();
  const uint64_t batch = static_cast<uint64_t>(std::max(1, opt.batch));
  for (uint64_t first = opt.first; first < opt.first + opt.count; first += batch) {
    std::vector<GeneratedKernel> ks;
    for (uint64_t i = first; i < std::min(first + batch, opt.first + opt.count); ++i)
      ks.push_back(generate_kernel(opt.seed, i, opt.simple));
    std::string file =
        "g" + std::to_string(opt.seed) + (opt.simple ? "s_" : "_") + std::to_string(first) + ".cu";
    GeneratedCampaignResult b = run_batch(ks, file, opt.race);
    res.add(b);
    if (opt.race.progress)
      opt.race.progress(file + ": " + std::to_string(b.kernels) + " kernels, " +
                        std::to_string(b.failures.size()) + " failure(s)");
  }
  res.seconds = since(t0);
  return res;
}

std::string coverage_report(const GeneratedCampaignResult& r) {
  std::ostringstream o;
  char line[160];
  std::snprintf(line, sizeof line, "%-46s %9s %10s %9s\n", "construct", "kernels", "race-free",
                "observed");
  o << line;
  for (const std::string& c : generator_constructs()) {
    auto it = r.coverage.find(c);
    std::array<uint64_t, 3> row{};
    if (it != r.coverage.end()) row = it->second;
    std::snprintf(line, sizeof line, "%-46s %9llu %10llu %9llu\n", c.c_str(),
                  static_cast<unsigned long long>(row[0]), static_cast<unsigned long long>(row[1]),
                  static_cast<unsigned long long>(row[2]));
    o << line;
  }
  return o.str();
}

} // namespace funmem::frontend
