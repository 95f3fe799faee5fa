// Running generated programs for the tuner (see program_runner.h).
#include "tune/program_runner.h"
#include "support/files.h"
#include "support/process.h"

#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace funmem::tune {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

/// A fresh temporary path for this process.
fs::path temp(const std::string& what) {
  static std::atomic<int> counter{0};
  return fs::temp_directory_path() /
         ("funmem-tune-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + what);
}

const char* status_word(RunResult::Status s) {
  switch (s) {
  case RunResult::Status::Ok:
    return "ok";
  case RunResult::Status::Failed:
    return "failed";
  case RunResult::Status::Timeout:
    return "timeout";
  }
  return "failed";
}

RunResult::Status status_of(const std::string& word) {
  return word == "ok"        ? RunResult::Status::Ok
         : word == "timeout" ? RunResult::Status::Timeout
                             : RunResult::Status::Failed;
}

json thresholds_json(const Forest& f, const std::vector<int64_t>& t) {
  json j = json::object();
  for (size_t i = 0; i < t.size(); ++i)
    j[f.thresholds[i].name] = threshold_text(t[i]);
  return j;
}

/// Calls `f` on each JSON line of the log at `path` (nothing when there is none); a line
/// `f` cannot read ends the reading with `PATH:LINE: error: ...`.
void read_log(const std::string& path, const std::function<void(const json&)>& f) {
  if (path.empty() || !fs::exists(path)) return;
  std::ifstream in(path);
  int no = 0;
  for (std::string line; std::getline(in, line);) {
    ++no;
    if (line.empty()) continue;
    try {
      f(json::parse(line));
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ":" + std::to_string(no) + ": error: " + e.what());
    }
  }
}

/// A logged run's status, time and error.
RunResult logged_result(const json& j) {
  RunResult r;
  r.status = status_of(j.at("status").get<std::string>());
  r.ms = j.value("ms", 0.0);
  r.error = j.value("error", "");
  return r;
}

/// A run's log line without what its runner adds (thresholds, flags): the inverse of
/// logged_result.
json result_json(const std::string& dataset, const RunResult& r) {
  json j;
  j["dataset"] = dataset;
  j["status"] = status_word(r.status);
  j["ms"] = r.ms;
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

/// The next logged run of `key` not replayed yet, if any.
template <class Key>
std::optional<RunResult> replay(const std::map<Key, std::vector<RunResult>>& logged,
                                std::map<Key, size_t>& used, const Key& key) {
  auto it = logged.find(key);
  if (it == logged.end()) return std::nullopt;
  size_t& k = used[key];
  if (k >= it->second.size()) return std::nullopt;
  return it->second[k++];
}

} // namespace

RunResult parse_run_output(const std::string& err, int status, const Forest& f) {
  RunResult r;
  if (status == 124 || status == 128 + 9) {
    r.status = RunResult::Status::Timeout;
    r.error = "timed out";
    return r;
  }
  bool timed = false;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    double ms = 0;
    if (std::sscanf(line.c_str(), "time: run %lf ms", &ms) == 1) {
      r.ms = ms;
      timed = true;
    }
    char name[512];
    long long p = 0, count = 0;
    if (std::sscanf(line.c_str(), "threshold %511s %lld %lld", name, &p, &count) == 3) {
      int i = f.index(name);
      if (i >= 0) r.comparisons[i][p] += count;
    }
    if (r.error.empty() && line.find(": error: ") != std::string::npos) r.error = line;
  }
  if (status != 0 || !timed) {
    r.status = RunResult::Status::Failed;
    if (r.error.empty())
      r.error = status != 0 ? "exit status " + std::to_string(status) : "no `time: run` line";
  }
  return r;
}

ProgramRunner::ProgramRunner(std::string exe, std::vector<ProgramDataset> datasets,
                             const Forest& forest, double timeout_s, std::string log_path,
                             std::string env)
    : exe_(std::move(exe)), datasets_(std::move(datasets)), forest_(forest), timeout_s_(timeout_s),
      log_path_(std::move(log_path)), env_(std::move(env)) {
  read_log(log_path_, [&](const json& j) {
    std::vector<int64_t> t(forest_.thresholds.size(), kInf);
    for (auto& [name, v] : j.at("thresholds").items()) {
      int i = forest_.index(name);
      if (i < 0) throw std::runtime_error("unknown threshold '" + name + "'");
      std::string s = v.get<std::string>();
      t[static_cast<size_t>(i)] = s == "inf" ? kInf : std::stoll(s);
    }
    RunResult r = logged_result(j);
    for (const json& c : j.at("comparisons")) {
      int i = forest_.index(c.at(0).get<std::string>());
      if (i >= 0) r.comparisons[i][c.at(1).get<int64_t>()] += c.at(2).get<int64_t>();
    }
    logged_[{j.at("dataset").get<std::string>(), t}].push_back(r);
  });
}

int run_generated(const std::string& exe, const std::string& input, const std::string& flags,
                  double timeout_s, std::string* err, const std::string& env) {
  std::ostringstream timeout;
  timeout << timeout_s;
  return run_command((env.empty() ? "" : "env " + env + " ") + "timeout -s KILL " + timeout.str() +
                         " " + shell_quote(exe) + " " + shell_quote(input) + " --no-output " +
                         flags,
                     nullptr, err);
}

int ProgramRunner::run_raw(size_t d, const std::string& flags, std::string* err) const {
  return run_generated(exe_, datasets_[d].input_file, flags, timeout_s_, err, env_);
}

RunResult ProgramRunner::run(size_t d, const std::vector<int64_t>& t) {
  Key key{datasets_[d].name, t};
  if (auto r = replay(logged_, used_, key)) {
    ++replayed;
    return *r;
  }
  fs::path tuning = temp(".tuning");
  {
    std::ofstream o(tuning);
    for (size_t i = 0; i < t.size(); ++i)
      o << forest_.thresholds[i].name << "=" << threshold_text(t[i]) << "\n";
  }
  std::string err;
  int rc = run_raw(d, "--time --log-thresholds --tuning " + shell_quote(tuning.string()), &err);
  std::error_code ec;
  fs::remove(tuning, ec);
  ++executed;
  RunResult r = parse_run_output(err, rc, forest_);
  logged_[key].push_back(r);
  ++used_[key];
  if (!log_path_.empty()) {
    json j = result_json(datasets_[d].name, r);
    j["thresholds"] = thresholds_json(forest_, t);
    j["comparisons"] = json::array();
    for (const auto& [i, ps] : r.comparisons)
      for (const auto& [p, count] : ps)
        j["comparisons"].push_back({forest_.thresholds[static_cast<size_t>(i)].name, p, count});
    std::ofstream(log_path_, std::ios::app) << j.dump() << "\n";
  }
  return r;
}

FlagRunner::FlagRunner(std::string exe, double timeout_s, std::string log_path, std::string env)
    : exe_(std::move(exe)), timeout_s_(timeout_s), log_path_(std::move(log_path)),
      env_(std::move(env)) {
  read_log(log_path_, [&](const json& j) {
    logged_[{j.at("dataset").get<std::string>(), j.at("flags").get<std::string>()}].push_back(
        logged_result(j));
  });
}

size_t FlagRunner::add_dataset(ProgramDataset d) {
  datasets_.push_back(std::move(d));
  return datasets_.size() - 1;
}

RunResult FlagRunner::run(size_t d, const std::string& flags) {
  Key key{datasets_[d].name, flags};
  if (auto r = replay(logged_, used_, key)) {
    ++replayed;
    return *r;
  }
  std::string err;
  int rc = run_generated(exe_, datasets_[d].input_file, "--time " + flags, timeout_s_, &err, env_);
  ++executed;
  RunResult r = parse_run_output(err, rc, Forest{});
  logged_[key].push_back(r);
  ++used_[key];
  if (!log_path_.empty()) {
    json j = result_json(datasets_[d].name, r);
    j["flags"] = flags;
    std::ofstream(log_path_, std::ios::app) << j.dump() << "\n";
  }
  return r;
}

} // namespace funmem::tune
