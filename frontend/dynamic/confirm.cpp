// Confirming open verdicts by running the kernel (confirm.h).
#include "frontend/dynamic/confirm.h"
#include "frontend/model/thread_space.h"

#include <algorithm>
#include <atomic>
#include <filesystem>

#include <unistd.h>

namespace funmem::frontend {

namespace fs = std::filesystem;

Launch default_launch(const KernelSummary& k, const GpuVerifyHeader& header, int64_t max_grid) {
  Launch l;
  for (int d = 0; d < 3; ++d) {
    bool used = false;
    for (const std::string& n : k.thread_names)
      used = used || n.substr(n.size() - 1) == kDims[d];
    l.block[d] = d == 0 ? 4 : used ? 2 : 1;
    l.grid[d] = d == 0 ? 2 : used ? 2 : 1;
  }
  for (const std::string& f : header.fact_texts) {
    size_t eq = f.find(" == ");
    if (eq == std::string::npos) continue;
    std::string name = f.substr(0, eq);
    int64_t v = std::stoll(f.substr(eq + 4));
    for (int d = 0; d < 3; ++d) {
      if (name == std::string("blockDim.") + kDims[d]) l.block[d] = v;
      if (name == std::string("gridDim.") + kDims[d]) l.grid[d] = std::min(v, max_grid);
    }
  }
  // The kernel's preconditions that fix a launch size or a scalar parameter (`name ==
  // e` with e constant or in launch sizes): the run meets them.
  for (int round = 0; round < 2; ++round)
    for (const Formula& f : k.preconditions) {
      if (f.kind != Formula::Kind::Cmp || f.rel != Rel::Eq) continue;
      std::map<std::string, int64_t> env = l.args;
      for (int d = 0; d < 3; ++d) {
        env[bdim(d)] = l.block[d];
        env[gdim(d)] = l.grid[d];
      }
      for (const auto& [a, b] : {std::pair{f.lhs, f.rhs}, std::pair{f.rhs, f.lhs}}) {
        auto vars = a.free_vars();
        std::string msg;
        auto val = b.eval(env, &msg);
        if (vars.size() != 1 || !(a == Poly::var(vars[0])) || !val) continue;
        bool dim = false;
        for (int d = 0; d < 3; ++d) {
          if (vars[0] == bdim(d)) l.block[d] = *val, dim = true;
          if (vars[0] == gdim(d)) l.grid[d] = *val, dim = true;
        }
        if (!dim) l.args[vars[0]] = *val;
        break;
      }
    }
  return l;
}

int confirm_by_running(const std::string& code, const std::string& file,
                       const std::vector<KernelSummary>& kernels,
                       std::vector<KernelVerdict>& verdicts, const std::vector<Formula>& facts,
                       const std::vector<std::string>& clang_args) {
  std::vector<size_t> open;
  for (size_t i = 0; i < kernels.size() && i < verdicts.size(); ++i)
    if (verdicts[i].verdict == Verdict::Unknown || verdicts[i].verdict == Verdict::Unsupported)
      open.push_back(i);
  if (open.empty()) return 0;
  static std::atomic<int> runs{0};
  fs::path dir = fs::temp_directory_path() /
                 ("funmem-confirm-" + std::to_string(::getpid()) + "-" + std::to_string(runs++));
  RaceDetector det(code, file, dir.string(), clang_args);
  int confirmed = 0;
  if (det.errors().empty()) {
    GpuVerifyHeader h = read_gpuverify_header(code);
    for (size_t i : open) {
      const KernelSummary& k = kernels[i];
      auto at = std::find(det.kernels().begin(), det.kernels().end(), k.name);
      if (at == det.kernels().end()) continue;
      size_t ki = static_cast<size_t>(at - det.kernels().begin());
      // Launches: the default, then more threads, then more blocks.
      std::vector<Launch> launches;
      // The header's grid as it is (the launches must meet the facts).
      Launch base = default_launch(k, h, 64);
      launches.push_back(base);
      for (auto [bx, gx] : {std::pair<int64_t, int64_t>{8, 2}, {32, 2}, {2, 4}}) {
        Launch l = base;
        l.block[0] = bx;
        l.grid[0] = gx;
        launches.push_back(l);
      }
      std::vector<RaceJob> jobs;
      for (const Launch& l0 : launches)
        for (int zero = 0; zero < 2; ++zero) {
          Launch l = l0;
          if (zero) l.args["@@fill"] = 0;
          // The facts and preconditions hold at the launch (unset scalars: the
          // number of threads in x, as the detector passes them).
          Env env;
          for (int d = 0; d < 3; ++d) {
            env[bdim(d)] = l.block[d];
            env[gdim(d)] = l.grid[d];
          }
          for (const std::string& p : k.scalar_params)
            env[p] = l.args.count(p) ? l.args.at(p) : l.block[0] * l.grid[0];
          bool ok = true;
          for (const std::vector<Formula>* fs : {&facts, &k.preconditions})
            for (const Formula& f : *fs) {
              auto t = f.eval(env);
              ok = ok && t && *t;
            }
          // At most 8192 threads (each block's threads are real threads of the emulation).
          if (l.block[0] * l.block[1] * l.block[2] * l.grid[0] * l.grid[1] * l.grid[2] > 8192)
            ok = false;
          if (!ok) continue;
          RaceJob j;
          j.launch = l;
          for (const RaceJob& x : in_both_block_orders(j))
            jobs.push_back(x);
        }
      std::vector<std::vector<JobResult>> results = det.run(jobs);
      for (size_t j = 0; j < results.size() && j < jobs.size(); ++j) {
        if (ki >= results[j].size() || results[j][ki].races.empty()) continue;
        // Only a run that touched nothing outside its objects and modelled everything
        // it ran shows a race of the kernel (a run stopped by its budget did so up to
        // where it stopped; a race search stopped by its own may have missed others).
        const std::vector<std::string>& errs = results[j][ki].errors;
        if (std::any_of(errs.begin(), errs.end(), [](const std::string& e) {
              return e.rfind("the run exceeded its work budget", 0) != 0 &&
                     e.rfind("the race search stopped", 0) != 0;
            }))
          continue;
        const ObservedRace& r = results[j][ki].races.front();
        const Launch& l = jobs[j].launch;
        RaceWitness w;
        w.array = r.object;
        for (const Access& a : k.accesses)
          if (a.array == r.object) w.unit = a.unit;
        w.address = r.byte / w.unit;
        w.first = r.first;
        w.second = r.second;
        for (int d = 0; d < 3; ++d) {
          w.launch[bdim(d)] = l.block[d];
          w.launch[gdim(d)] = l.grid[d];
        }
        for (const auto& [n, v] : l.args)
          w.launch[n] = v; // `@@fill`, `@@reverse` too: the witness reruns as observed
        KernelVerdict& v = verdicts[i];
        v.verdict = Verdict::Race;
        v.reason = "two threads access " + w.array + "[" + std::to_string(w.address) +
                   "], observed by running the kernel" +
                   (l.args.count("@@fill") ? " on zero-filled memory" : "") +
                   (l.args.count("@@reverse") ? " with its blocks in reverse order" : "");
        v.witness = w;
        ++confirmed;
        break;
      }
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return confirmed;
}

Launch witness_launch(const RaceWitness& w) {
  Launch l;
  for (int d = 0; d < 3; ++d) {
    l.block[d] = 1;
    l.grid[d] = 1;
  }
  for (const auto& [n, v] : w.launch) {
    bool builtin = false;
    for (int d = 0; d < 3; ++d) {
      if (n == bdim(d)) l.block[d] = v, builtin = true;
      if (n == gdim(d)) l.grid[d] = v, builtin = true;
    }
    for (const char* b : {"threadIdx_", "blockIdx_", "blockDim_", "gridDim_"})
      builtin = builtin || n.rfind(b, 0) == 0;
    if (!builtin) l.args[n] = v;
  }
  // Buffers long enough to hold the raced-on address (elements are at least a byte).
  // (Saturated at 2^22: a launch may have 2^31 - 1 blocks.)
  const int64_t cap = int64_t{1} << 22;
  int64_t threads = 1;
  for (int d = 0; d < 3; ++d)
    threads = std::min<int64_t>(threads * std::min(l.block[d] * l.grid[d], cap), cap);
  const int64_t square = threads >= 2048 ? cap : threads * threads + 64;
  const int64_t reach = w.address >= cap ? cap : (w.address + 1) * w.unit;
  l.elements = std::min<int64_t>(std::max<int64_t>(square, reach), cap);
  return l;
}

std::vector<RaceJob> in_both_block_orders(const RaceJob& job) {
  std::vector<RaceJob> jobs = {job};
  if (job.launch.grid[0] * job.launch.grid[1] * job.launch.grid[2] > 1) {
    jobs.push_back(job);
    jobs.back().launch.args["@@reverse"] = 1;
  }
  return jobs;
}

std::vector<JobResult> merge_block_orders(const std::vector<std::vector<JobResult>>& runs) {
  if (runs.empty()) return {};
  std::vector<JobResult> out = runs.front();
  for (size_t k = 0; runs.size() > 1 && k < out.size() && k < runs[1].size(); ++k) {
    const JobResult& b = runs[1][k];
    JobResult& a = out[k];
    for (ObservedRace x : b.races)
      if (std::none_of(a.races.begin(), a.races.end(), [&](const ObservedRace& y) {
            return y.object == x.object && y.first == x.first && y.second == x.second;
          })) {
        x.object += " (blocks in reverse order)";
        a.races.push_back(x);
      }
    a.finished = a.finished && b.finished;
    for (const std::string& e : b.errors)
      if (std::find(a.errors.begin(), a.errors.end(), e) == a.errors.end()) a.errors.push_back(e);
  }
  return out;
}

} // namespace funmem::frontend
