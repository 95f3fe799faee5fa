// Benchmark of the reference interpreters at growing sizes: the whole check of
// `funmem-check` (every expectation of the file: the value semantics, the heap semantics
// and the heap semantics after each pipeline stage, `sc` included) of NW, LUD and
// Hotspot from the corpus, with n doubling. Each size runs in a child process, so that
// its peak resident memory is its own. Prints a Markdown table: n, the elements the
// program computes (the heap semantics' element writes, summed over the runs), seconds
// of the whole check and of its interpreter runs alone (the rest is parsing, type
// checking and the passes, sc's proofs included, which do not depend on n), run
// nanoseconds per element, peak resident memory. Results go to docs/interpreters.md.
//   funmem-bench-interp-scale [--root DIR] [--max-n N] [--only NAME]
#include "ir/parser.h"
#include "support/files.h"
#include "verifier/check.h"

#include <CLI/CLI.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using namespace funmem;

namespace {

struct Shape {
  std::string name, file;
  std::function<std::string(int64_t n)> inputs; // the data set for size n
  std::function<int64_t(int64_t k)> size;       // n of the k-th size (doubling)
};

/// The child's part: checks the file on one data set; writes the elements computed and
/// whether every expectation held to `fd`.
int run_one(const std::string& path, const std::string& input, int fd) {
  CheckOptions opt;
  Diagnostic d;
  auto set = parse_input_set(input, &d);
  if (!set) return 3;
  opt.inputs.push_back(*set);
  opt.limits.max_memory_bytes = int64_t{16} << 30;
  opt.limits.max_steps = int64_t{1} << 40;
  CheckReport r = check_source(path, read_file(path), opt);
  int64_t writes = 0;
  for (const DataSetRun& run : r.runs)
    writes += run.heap_stats.writes;
  std::string line = std::to_string(writes) + " " + std::to_string(r.run_seconds) + " " +
                     (r.ok() ? "ok" : "FAILED") + "\n";
  if (write(fd, line.data(), line.size()) < 0) return 4;
  return r.ok() ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"funmem-bench-interp-scale: funmem-check time and memory as n doubles"};
  std::string root = ".", only;
  int64_t max_n = 4097;
  app.add_option("--root", root, "the project's root (for corpus/)");
  app.add_option("--max-n", max_n, "the largest n");
  app.add_option("--only", only, "one program: nw, lud or hotspot");
  CLI11_PARSE(app, argc, argv);

  const std::vector<Shape> shapes = {
      // NW: n = q*b + 1 with b = 16.
      {"nw", root + "/corpus/nw/nw-full.funmem",
       [](int64_t n) { return "q=" + std::to_string((n - 1) / 16) + " b=16"; },
       [](int64_t k) { return (int64_t{8} << k) * 16 + 1; }},
      // LUD: n = q*b with q = 4 (its work grows as q n^2: fixed q keeps it n^2).
      {"lud", root + "/corpus/sc/lud.fun",
       [](int64_t n) { return "q=4 b=" + std::to_string(n / 4); },
       [](int64_t k) { return int64_t{128} << k; }},
      // Hotspot: an n x n grid, two steps.
      {"hotspot", root + "/corpus/sc/hotspot.fun",
       [](int64_t n) { return "steps=2 n=" + std::to_string(n) + " m=" + std::to_string(n); },
       [](int64_t k) { return (int64_t{128} << k) + 1; }},
  };
  std::printf("| program | n | data set | elements computed | seconds | of which runs | run ns "
              "per element | peak memory (MB) | check |\n|---|---|---|---|---|---|---|---|---|\n");
  std::fflush(stdout);
  for (const Shape& s : shapes) {
    if (!only.empty() && only != s.name) continue;
    for (int k = 0; s.size(k) <= max_n; ++k) {
      const int64_t n = s.size(k);
      const std::string input = s.inputs(n);
      int fds[2];
      if (pipe(fds) != 0) return 2;
      auto t0 = std::chrono::steady_clock::now();
      pid_t pid = fork();
      if (pid == 0) {
        close(fds[0]);
        _exit(run_one(s.file, input, fds[1]));
      }
      close(fds[1]);
      int status = 0;
      struct rusage ru {};
      wait4(pid, &status, 0, &ru);
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      char buf[128] = {0};
      ssize_t got = read(fds[0], buf, sizeof buf - 1);
      close(fds[0]);
      long long writes = 0;
      double run_secs = 0;
      char verdict[16] = "crashed";
      if (got > 0) std::sscanf(buf, "%lld %lf %15s", &writes, &run_secs, verdict);
      std::printf("| %s | %lld | %s | %lld | %.2f | %.2f | %.1f | %.0f | %s |\n", s.name.c_str(),
                  static_cast<long long>(n), input.c_str(), writes, secs, run_secs,
                  writes > 0 ? run_secs * 1e9 / static_cast<double>(writes) : 0.0,
                  static_cast<double>(ru.ru_maxrss) / 1024.0, verdict);
      std::fflush(stdout);
    }
  }
  return 0;
}
