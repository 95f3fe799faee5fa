// Random search and hill climbing over threshold configurations (see baselines.h).
#include "tune/baselines.h"

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <set>

namespace funmem::tune {

namespace {

constexpr double kSlowest = std::numeric_limits<double>::infinity();

/// The search space: per threshold the sorted values it was compared with, then inf.
/// A configuration is an index per threshold (index k: T = values[k]).
class Space {
public:
  Space(const Forest& f, Runner& r, int budget) : f_(f), r_(r), budget_(budget) {
    values_.resize(f.thresholds.size());
    std::vector<std::set<int64_t>> seen(f.thresholds.size());
    std::vector<int64_t> all_inf(f.thresholds.size(), kInf);
    double total = 0;
    for (size_t d = 0; d < r.datasets(); ++d) {
      RunResult res = r.run(d, all_inf);
      ++trace.runs;
      total += res.status == RunResult::Status::Ok ? res.ms : kSlowest;
      for (const auto& [th, ps] : res.comparisons)
        for (const auto& [p, count] : ps)
          seen[static_cast<size_t>(th)].insert(p);
    }
    for (size_t i = 0; i < seen.size(); ++i) {
      values_[i].assign(seen[i].begin(), seen[i].end());
      values_[i].push_back(kInf);
    }
    std::vector<size_t> top = top_config();
    scores_[top] = total;
    record(top, total);
  }

  SearchTrace trace;
  size_t thresholds() const { return values_.size(); }
  size_t choices(size_t i) const { return values_[i].size(); }
  bool out_of_budget() const { return trace.runs + static_cast<int>(r_.datasets()) > budget_; }
  std::vector<size_t> top_config() const {
    std::vector<size_t> c(values_.size());
    for (size_t i = 0; i < c.size(); ++i)
      c[i] = values_[i].size() - 1;
    return c;
  }
  /// Thresholds below one that always chooses its version are never compared: they
  /// are set to inf so that equal choices of versions are one configuration.
  std::vector<size_t> normal(std::vector<size_t> c) const {
    for (size_t i = 0; i < c.size(); ++i)
      for (int p = f_.thresholds[i].parent; p >= 0;
           p = f_.thresholds[static_cast<size_t>(p)].parent)
        if (c[static_cast<size_t>(p)] == 0) c[i] = values_[i].size() - 1;
    return c;
  }
  bool seen(const std::vector<size_t>& c) const { return scores_.count(normal(c)) > 0; }
  size_t distinct_upper_bound() const {
    double n = 1;
    for (const auto& v : values_)
      n *= static_cast<double>(v.size());
    return n > 1e9 ? static_cast<size_t>(1e9) : static_cast<size_t>(n);
  }
  /// Runs every data set (or reuses the score of an equal configuration).
  double score(const std::vector<size_t>& c0) {
    std::vector<size_t> c = normal(c0);
    if (auto it = scores_.find(c); it != scores_.end()) return it->second;
    std::vector<int64_t> t = config(c);
    double total = 0;
    for (size_t d = 0; d < r_.datasets(); ++d) {
      RunResult res = r_.run(d, t);
      ++trace.runs;
      if (res.status != RunResult::Status::Ok) {
        total = kSlowest;
        break; // the configuration has failed: the other data sets need not run
      }
      total += res.ms;
    }
    scores_[c] = total;
    record(c, total);
    return total;
  }
  std::vector<int64_t> config(const std::vector<size_t>& c) const {
    std::vector<int64_t> t(c.size());
    for (size_t i = 0; i < c.size(); ++i)
      t[i] = values_[i][c[i]];
    return t;
  }
  size_t evaluated() const { return scores_.size(); }

private:
  const Forest& f_;
  Runner& r_;
  int budget_;
  std::vector<std::vector<int64_t>> values_;
  std::map<std::vector<size_t>, double> scores_;
  double best_ = kSlowest;

  void record(const std::vector<size_t>& c, double total) {
    if (total < best_ || trace.incumbents.empty()) {
      best_ = total;
      trace.best = config(c);
      trace.incumbents.emplace_back(trace.runs, trace.best);
    }
  }
};

} // namespace

SearchTrace random_search(const Forest& f, Runner& r, int budget_runs, uint64_t seed) {
  Space s(f, r, budget_runs);
  std::mt19937_64 rng(seed);
  int misses = 0;
  while (!s.out_of_budget()) {
    std::vector<size_t> c(s.thresholds());
    for (size_t i = 0; i < c.size(); ++i)
      c[i] = std::uniform_int_distribution<size_t>(0, s.choices(i) - 1)(rng);
    if (s.seen(c)) {
      // Skip configurations that choose the same versions; stop when none is left.
      if (++misses > 2000 || s.evaluated() >= s.distinct_upper_bound()) {
        s.trace.exhausted = true;
        break;
      }
      continue;
    }
    misses = 0;
    s.score(c);
  }
  return s.trace;
}

SearchTrace hill_climb(const Forest& f, Runner& r, int budget_runs, uint64_t seed) {
  Space s(f, r, budget_runs);
  std::mt19937_64 rng(seed);
  std::vector<size_t> cur = s.top_config();
  double cur_score = s.score(cur);
  int restarts_without_news = 0;
  while (!s.out_of_budget()) {
    // Neighbours: one threshold one candidate up or down, or to either end.
    std::vector<std::vector<size_t>> ns;
    for (size_t i = 0; i < cur.size(); ++i)
      for (size_t to : {cur[i] == 0 ? cur[i] : cur[i] - 1, cur[i] + 1, size_t{0}, s.choices(i) - 1})
        if (to < s.choices(i) && to != cur[i]) {
          std::vector<size_t> n = cur;
          n[i] = to;
          ns.push_back(n);
        }
    std::shuffle(ns.begin(), ns.end(), rng);
    bool moved = false;
    for (const auto& n : ns) {
      if (s.out_of_budget()) break;
      bool fresh = !s.seen(n);
      double sc = s.score(n);
      if (fresh) restarts_without_news = 0;
      if (sc < cur_score) {
        cur = n;
        cur_score = sc;
        moved = true;
        break;
      }
    }
    if (!moved) {
      // A local minimum: restart at a random configuration.
      if (++restarts_without_news > 200 || s.evaluated() >= s.distinct_upper_bound()) {
        s.trace.exhausted = true;
        break;
      }
      for (size_t i = 0; i < cur.size(); ++i)
        cur[i] = std::uniform_int_distribution<size_t>(0, s.choices(i) - 1)(rng);
      if (s.out_of_budget()) break;
      cur_score = s.score(cur);
    }
  }
  return s.trace;
}

} // namespace funmem::tune
