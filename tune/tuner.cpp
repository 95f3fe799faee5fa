// The monotonic autotuner (see tuner.h and docs/tuning.md).
#include "tune/tuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace funmem::tune {

std::string threshold_text(int64_t v) {
  return v == kInf ? "inf" : std::to_string(v);
}

int Forest::index(const std::string& name) const {
  for (size_t k = 0; k < thresholds.size(); ++k)
    if (thresholds[k].name == name) return static_cast<int>(k);
  return -1;
}

std::string Forest::validate() const {
  for (size_t k = 0; k < thresholds.size(); ++k) {
    const Threshold& t = thresholds[k];
    if (t.name.empty()) return "threshold " + std::to_string(k) + " has no name";
    if (index(t.name) != static_cast<int>(k)) return "threshold '" + t.name + "' appears twice";
    if (t.parent >= static_cast<int>(k))
      return "threshold '" + t.name + "' comes before its parent (not depth-first)";
    if (t.default_value < 0) return "threshold '" + t.name + "' has a negative default";
  }
  return "";
}

Forest parse_tuning_tree(const std::string& text, std::string* error) {
  // threshold NAME parent PARENT|- default D at WHERE, then indented detail lines.
  Forest f;
  std::istringstream in(text);
  std::string line;
  int no = 0;
  auto fail = [&](const std::string& m) {
    if (error) *error = "tuning tree line " + std::to_string(no) + ": " + m;
    return Forest{};
  };
  while (std::getline(in, line)) {
    ++no;
    if (line.empty()) continue;
    if (line[0] == ' ') {
      if (!f.thresholds.empty()) {
        std::string& info = f.thresholds.back().info;
        size_t b = line.find_first_not_of(' ');
        info += (info.empty() ? "" : "; ") + line.substr(b);
      }
      continue;
    }
    std::istringstream w(line);
    std::string kw, name, pkw, parent, dkw, def;
    if (!(w >> kw >> name >> pkw >> parent >> dkw >> def) || kw != "threshold" || pkw != "parent" ||
        dkw != "default")
      return fail("expected `threshold NAME parent P default D ...`, got '" + line + "'");
    Threshold t;
    t.name = name;
    if (parent != "-") {
      t.parent = f.index(parent);
      if (t.parent < 0) return fail("unknown parent '" + parent + "'");
    }
    try {
      t.default_value = def == "inf" ? kInf : std::stoll(def);
    } catch (const std::exception&) {
      return fail("bad default '" + def + "'");
    }
    f.thresholds.push_back(t);
  }
  if (std::string e = f.validate(); !e.empty()) return fail(e);
  if (error) error->clear();
  return f;
}

Interval Interval::meet(const Interval& o) const {
  return Interval{std::max(lb, o.lb), std::min(ub, o.ub)};
}

std::string Interval::text() const {
  if (empty()) return "empty";
  return "[" + threshold_text(lb) + ", " + threshold_text(ub) + "]";
}

int64_t pick_value(const Interval& i, int64_t default_value) {
  if (i.empty()) return default_value;
  return std::clamp(default_value, i.lb, i.ub);
}

namespace {

constexpr double kSlowest = std::numeric_limits<double>::infinity();

class Tuner {
public:
  Tuner(const Forest& f, Runner& r, const TuneOptions& o) : f_(f), runner_(r), opt_(o) {}

  TuneResult run() {
    const size_t n = f_.thresholds.size();
    res_.intervals.assign(n, Interval{});
    std::vector<std::vector<std::pair<std::string, Interval>>> wants(n);
    for (size_t d = 0; d < runner_.datasets(); ++d) {
      DatasetReport rep = dataset(d);
      for (size_t i = 0; i < n; ++i) {
        const Interval& iv = rep.thresholds[i].interval;
        res_.intervals[i] = res_.intervals[i].meet(iv);
        wants[i].emplace_back(rep.name, iv);
      }
      res_.datasets.push_back(std::move(rep));
    }
    res_.values.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const int64_t def = f_.thresholds[i].default_value;
      if (!res_.intervals[i].empty()) {
        res_.values[i] = pick_value(res_.intervals[i], def);
        continue;
      }
      // No value suits every data set: take the one that suits the most.
      Conflict c{static_cast<int>(i), {}};
      for (const auto& w : wants[i])
        if (!(w.second == Interval{})) c.wants.push_back(w);
      res_.conflicts.push_back(c);
      res_.values[i] = most_covered(wants[i], def);
    }
    return std::move(res_);
  }

private:
  const Forest& f_;
  Runner& runner_;
  const TuneOptions& opt_;
  TuneResult res_;
  std::map<std::pair<size_t, std::vector<int64_t>>, std::pair<double, RunResult>> cache_;

  static int64_t most_covered(const std::vector<std::pair<std::string, Interval>>& ws,
                              int64_t def) {
    std::vector<int64_t> points{def};
    for (const auto& w : ws) {
      points.push_back(w.second.lb);
      points.push_back(w.second.ub);
    }
    int64_t best = def;
    size_t best_count = 0;
    for (int64_t p : points) {
      size_t c = 0;
      for (const auto& w : ws)
        c += w.second.contains(p) ? 1 : 0;
      if (c > best_count || (c == best_count && p == def)) {
        best = p;
        best_count = c;
      }
    }
    return best;
  }

  /// The minimum of `repeats` timings; a failed or timed-out run is the slowest.
  double measure(size_t d, const std::vector<int64_t>& t, DatasetReport& rep, RunResult* first) {
    auto key = std::make_pair(d, t);
    if (auto it = cache_.find(key); it != cache_.end()) {
      if (first) *first = it->second.second;
      return it->second.first;
    }
    double best = kSlowest;
    RunResult r0;
    for (int k = 0; k < std::max(1, opt_.repeats); ++k) {
      auto t0 = std::chrono::steady_clock::now();
      RunResult r = runner_.run(d, t);
      double spent =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      ++rep.runs;
      ++res_.runs;
      rep.time_ms += spent;
      res_.time_ms += spent;
      if (k == 0) r0 = r;
      if (opt_.progress) {
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.3f ms", r.ms);
        std::string what = rep.name + ": run " + std::to_string(rep.runs) + " (" +
                           (r.status == RunResult::Status::Ok        ? std::string(ms)
                            : r.status == RunResult::Status::Timeout ? "timeout"
                                                                     : "failed: " + r.error) +
                           ")";
        opt_.progress(what);
      }
      if (r.status != RunResult::Status::Ok) {
        best = kSlowest;
        break;
      }
      best = std::min(best, r.ms);
    }
    cache_[key] = {best, r0};
    if (first) *first = r0;
    return best;
  }

  bool faster(double a, double b) const { return a < b * (1.0 - opt_.epsilon); }

  DatasetReport dataset(size_t d) {
    const size_t n = f_.thresholds.size();
    DatasetReport rep;
    rep.name = runner_.dataset_name(d);
    rep.thresholds.resize(n);
    std::vector<int64_t> t(n, kInf);
    RunResult base;
    double best = measure(d, t, rep, &base);
    rep.baseline_ms = best;
    if (best == kSlowest)
      res_.notes.push_back(rep.name + ": the bottom versions fail (" + base.error +
                           "): the failing run is the slowest, the kernels after the failure are "
                           "tuned once a working configuration reaches them");
    // Bottom-up over the forest, each threshold against the values the run of the
    // current configuration compared it with. A failed run stops early and hides the
    // kernels after it: their thresholds are tuned in a further pass, once a working
    // configuration has shown them.
    RunResult cur = base;
    std::vector<bool> done(n, false);
    for (bool progress = true; progress;) {
      progress = false;
      for (size_t i = n; i-- > 0;) {
        if (done[i]) continue;
        ThresholdTrace& tr = rep.thresholds[i];
        tr.values.clear();
        if (auto it = cur.comparisons.find(static_cast<int>(i)); it != cur.comparisons.end())
          for (const auto& [p, count] : it->second)
            tr.values.push_back(p);
        if (tr.values.empty()) continue; // not compared (yet): unconstrained, no run
        int runs_before = rep.runs;
        best = threshold(d, t, i, best, tr, rep);
        tr.runs = rep.runs - runs_before;
        done[i] = progress = true;
        measure(d, t, rep, &cur); // cached: the log of the configuration now chosen
      }
    }
    rep.best_ms = best;
    rep.chosen = t;
    return rep;
  }

  /// TUNEVARTHRESHOLD: a search for the minimum of the unimodal run time over the
  /// candidate values x_1 < ... < x_m < inf (an invariant threshold takes one run).
  double threshold(size_t d, std::vector<int64_t>& t, size_t i, double best, ThresholdTrace& tr,
                   DatasetReport& rep) {
    const std::vector<int64_t>& x = tr.values;
    const size_t m = x.size();
    auto value = [&](size_t j) { return j < m ? x[j] : kInf; }; // j in 0..m
    std::map<size_t, double> f;
    f[m] = best;
    auto at = [&](size_t j) {
      if (auto it = f.find(j); it != f.end()) return it->second;
      std::vector<int64_t> c = t;
      c[i] = value(j);
      double r = measure(d, c, rep, nullptr);
      f[j] = r;
      tr.tried.emplace_back(value(j), r);
      return r;
    };
    size_t lo = 0, hi = m;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (faster(at(mid), at(mid + 1)))
        hi = mid;
      else
        lo = mid + 1;
    }
    size_t j = lo;
    const std::string& name = f_.thresholds[i].name;
    // Monotonicity checks: the times seen must fall, then rise; the choice must not be
    // slower than the subtree alone.
    if (at(j) > best) {
      if (at(j) > best * (1.0 + opt_.tolerance))
        res_.warnings.push_back(
            rep.name + ": " + name + ": the search ended at T = " + threshold_text(value(j)) +
            " (" + std::to_string(at(j)) + " ms), slower than the versions below it (" +
            std::to_string(best) + " ms): the monotonicity assumption does not hold");
      j = m;
    }
    size_t argmin = j;
    for (const auto& [k, r] : f)
      if (r < f[argmin]) argmin = k;
    double prev = -1;
    size_t prev_k = 0;
    for (const auto& [k, r] : f) {
      if (prev >= 0) {
        bool left = k <= argmin;
        bool bad = left ? r > prev * (1.0 + opt_.tolerance) : prev > r * (1.0 + opt_.tolerance);
        if (bad && r != kSlowest && prev != kSlowest) {
          res_.warnings.push_back(rep.name + ": " + name +
                                  ": T = " + threshold_text(value(prev_k)) + " took " +
                                  std::to_string(prev) + " ms and T = " + threshold_text(value(k)) +
                                  " took " + std::to_string(r) +
                                  " ms: the run time is not unimodal in T (monotonicity "
                                  "assumption broken)");
          break;
        }
      }
      prev = r;
      prev_k = k;
    }
    tr.interval = j == m ? Interval{x[m - 1] + 1, kInf} : Interval{j == 0 ? 0 : x[j - 1] + 1, x[j]};
    t[i] = value(j);
    return at(j);
  }
};

} // namespace

TuneResult tune_program(const Forest& f, Runner& runner, const TuneOptions& opt) {
  return Tuner(f, runner, opt).run();
}

std::string tuning_file(const Forest& f, const TuneResult& r) {
  std::string s = "# funmem-tune: threshold values (name=value); intervals in comments\n";
  for (size_t i = 0; i < f.thresholds.size(); ++i) {
    const Interval& iv = r.intervals[i];
    s += "# " + f.thresholds[i].name + ": " +
         (iv.empty() ? std::string("no value suits every data set") : "optimal in " + iv.text()) +
         "\n";
    s += f.thresholds[i].name + "=" + threshold_text(r.values[i]) + "\n";
  }
  return s;
}

std::string tuning_report(const Forest& f, const TuneResult& r) {
  std::ostringstream o;
  char buf[256];
  for (const DatasetReport& d : r.datasets) {
    std::snprintf(buf, sizeof buf, "data set %s: %d run(s), %.1f ms spent; %.3f ms -> %.3f ms\n",
                  d.name.c_str(), d.runs, d.time_ms, d.baseline_ms, d.best_ms);
    o << buf;
    for (size_t i = 0; i < f.thresholds.size(); ++i) {
      const ThresholdTrace& tr = d.thresholds[i];
      const std::string& name = f.thresholds[i].name;
      if (tr.values.empty()) {
        o << "  " << name << ": not compared\n";
        continue;
      }
      int64_t v = r.values[i];
      size_t above = 0;
      for (int64_t p : tr.values)
        above += p >= v ? 1 : 0;
      std::string choice = above == tr.values.size() ? "the guarded version"
                           : above == 0              ? "the versions below"
                                                     : "mixed (" + std::to_string(above) + " of " +
                                              std::to_string(tr.values.size()) +
                                              " values take the guarded version)";
      std::string ps;
      for (size_t k = 0; k < tr.values.size() && k < 6; ++k)
        ps += (k ? "," : "") + std::to_string(tr.values[k]);
      if (tr.values.size() > 6) ps += ",...";
      o << "  " << name << ": P in {" << ps << "}, interval " << tr.interval.text() << ", "
        << tr.runs << " run(s); tuned value " << threshold_text(v) << " runs " << choice << "\n";
    }
  }
  for (const Conflict& c : r.conflicts) {
    o << "conflict: " << f.thresholds[static_cast<size_t>(c.threshold)].name
      << ": no value suits every data set:";
    for (const auto& [ds, iv] : c.wants)
      o << " " << ds << " wants " << iv.text() << ";";
    o << "\n";
  }
  for (const std::string& w : r.notes)
    o << "note: " << w << "\n";
  for (const std::string& w : r.warnings)
    o << "warning: " << w << "\n";
  std::snprintf(buf, sizeof buf, "total: %d run(s), %.1f ms\n", r.runs, r.time_ms);
  o << buf;
  return o.str();
}

} // namespace funmem::tune
