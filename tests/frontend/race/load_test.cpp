// Verdicts are a function of the source and the options alone: the same kernels checked
// on an idle machine and beside a CPU hog get the same verdicts, reasons and solver
// work, and no solver check reaches the wall-clock guard.
#include "tests/frontend/frontend_test_util.h"

#include "analysis/solver.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

using namespace funmem;
using namespace funmem::frontend;
using namespace funmem::frontend_test;
namespace fs = std::filesystem;

namespace {

struct Outcome {
  std::string verdict, reason;
  double work_ms = 0;
  int wall_guard = 0;
};

/// Checks every kernel of `file` on a fresh thread: a fresh Z3 context and empty
/// per-thread caches, so that a second run does the first one's work again.
std::vector<Outcome> check_fresh(const fs::path& file, const RaceOptions& o) {
  std::vector<Outcome> out;
  std::thread t([&] {
    ExtractResult r = extract(test::slurp(file), file.filename().string());
    for (const KernelSummary& k : r.kernels) {
      KernelVerdict v = check_kernel(k, o);
      out.push_back({verdict_name(v.verdict), v.reason, v.work_ms, v.wall_guard});
    }
  });
  t.join();
  return out;
}

/// Keeps every core busy while alive.
class CpuHog {
public:
  CpuHog() {
    const unsigned n = std::max(2u, std::thread::hardware_concurrency()) * 2;
    for (unsigned i = 0; i < n; ++i)
      threads_.emplace_back([this] {
        volatile uint64_t x = 0;
        while (!stop_.load(std::memory_order_relaxed))
          x = x * 6364136223846793005u + 1442695040888963407u;
      });
  }
  ~CpuHog() {
    stop_ = true;
    for (std::thread& t : threads_)
      t.join();
  }
  CpuHog(const CpuHog&) = delete;
  CpuHog& operator=(const CpuHog&) = delete;

private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

} // namespace

TEST_CASE("a CPU hog beside the checker changes no verdict, reason or solver work",
          "[frontend][budget]") {
  // The corpus's kernels with the most solver work (nonlinear questions), a racy one,
  // and one whose small per-kernel budget is spent before its last question.
  const fs::path dir = fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "cuda";
  struct Case {
    const char* file;
    unsigned budget_ms;
  };
  const Case cases[] = {{"lud-perimeter.cu", 10000},     {"lud-internal.cu", 10000},
                        {"nw-update.cu", 10000},         {"transpose.cu", 10000},
                        {"lud-internal-race.cu", 10000}, {"lud-perimeter.cu", 500}};
  for (const Case& c : cases) {
    INFO(c.file << " with a budget of " << c.budget_ms << " ms of solver work");
    RaceOptions o;
    o.budget_ms = c.budget_ms;
    // A first run fills what the process keeps between runs (the work of a second run
    // of one kernel in one process may differ from the first's by a few units); the
    // idle and the loaded run are the second and the third.
    const std::vector<Outcome> first = check_fresh(dir / c.file, o);
    const std::vector<Outcome> idle = check_fresh(dir / c.file, o);
    REQUIRE(first.size() == idle.size());
    for (size_t i = 0; i < idle.size(); ++i) {
      CHECK(first[i].verdict == idle[i].verdict);
      CHECK(first[i].reason == idle[i].reason);
    }
    std::vector<Outcome> loaded;
    {
      CpuHog hog;
      loaded = check_fresh(dir / c.file, o);
    }
    REQUIRE(idle.size() == loaded.size());
    REQUIRE_FALSE(idle.empty());
    for (size_t i = 0; i < idle.size(); ++i) {
      CHECK(idle[i].verdict == loaded[i].verdict);
      CHECK(idle[i].reason == loaded[i].reason);
      CHECK(idle[i].work_ms == loaded[i].work_ms);
      CHECK(idle[i].wall_guard == 0);
      CHECK(loaded[i].wall_guard == 0);
      if (c.budget_ms == 500) {
        CHECK(idle[i].verdict == "unknown");
        CHECK(idle[i].reason.find("ms of solver work was spent") != std::string::npos);
      }
    }
  }
}
