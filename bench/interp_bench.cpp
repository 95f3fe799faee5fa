// Benchmark of the reference interpreters: checked element accesses per second of the
// heap semantics (target: 20 million per second on one core) and the time of a whole
// validity check (value + heap semantics + comparison) of NW with q*b + 1 = 1025, b = 16
// (target: under 10 s). Results go to docs/interpreters.md.
//   funmem-bench-interp [--q Q] [--b B] [--map-n N] NW.funmem
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/typecheck.h"
#include "ir/unmem.h"
#include "support/files.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace funmem;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Program load(const std::string& text, Lang lang) {
  ParseResult r = parse_program(text, lang);
  if (!r.program || !typecheck(*r.program).empty()) {
    std::fprintf(stderr, "the benchmark program does not parse or type-check\n");
    std::exit(2);
  }
  return *r.program;
}

void report(const char* what, const RunResult& r, double secs) {
  double ks = r.stats.kernel_seconds;
  std::printf("| %s | %.3f | %.3f | %lld | %lld | %lld | %.1f | %.1f | %.1f |\n", what, secs, ks,
              static_cast<long long>(r.stats.reads + r.stats.writes),
              static_cast<long long>(r.stats.checked), static_cast<long long>(r.stats.copies),
              static_cast<double>(r.stats.checked) / secs / 1e6,
              ks > 0 ? static_cast<double>(r.stats.checked) / ks / 1e6 : 0.0,
              static_cast<double>(r.stats.peak_bytes) / (1 << 20));
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"funmem-bench-interp: heap interpreter throughput and NW validity time"};
  std::string file;
  int64_t q = 64, b = 16, map_n = 4'000'000;
  app.add_option("file", file, "the NW program (bench/nw-full.funmem)")->required();
  app.add_option("--q", q, "blocks per side");
  app.add_option("--b", b, "block size");
  app.add_option("--map-n", map_n, "elements of the map kernel");
  CLI11_PARSE(app, argc, argv);

  std::printf("| run | seconds | in kernels | heap accesses | checked accesses | memcpys | "
              "checked M/s (whole run) | checked M/s (in kernels) | peak MiB |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  // A map kernel: every iteration reads two elements and writes one.
  Program map = load("def map (n : i64) (xm : mem) (xs : [n]@xm -> R(n)) : (mem, [n]) =\n"
                     "  let (m : mem) = alloc n\n"
                     "  let (y : [n]@m -> R(n)) = kernel i < n do\n"
                     "    let a = xs[i]\n    let j = (i + 1) % n\n    let c = xs[j]\n"
                     "    let d = a + c\n    in (d)\n"
                     "  in (m, y)",
                     Lang::FunMem);
  InputSet set;
  set.values.push_back(
      {Name{"n", {}}, InputValue{InputValue::Kind::Scalar, Lit{ScalarType::I64, map_n, 0}, {}}});
  Inputs mi = make_inputs(map.def, &set, 1);
  double t0 = now_s();
  RunResult mr = run_program(map, Semantics::Heap, mi);
  report("map kernel, heap semantics", mr, now_s() - t0);

  Program nw = load(read_file(file), Lang::FunMem);
  InputSet ns;
  ns.values.push_back(
      {Name{"q", {}}, InputValue{InputValue::Kind::Scalar, Lit{ScalarType::I64, q, 0}, {}}});
  ns.values.push_back(
      {Name{"b", {}}, InputValue{InputValue::Kind::Scalar, Lit{ScalarType::I64, b, 0}, {}}});
  Inputs ni = make_inputs(nw.def, &ns, 1);
  for (auto& p : nw.def.params)
    if (p.type && p.type->kind == Type::Kind::Mem) ni[p.name.s].is_mem = true;
  double t1 = now_s();
  RunResult hv = run_program(nw, Semantics::Heap, ni);
  double t2 = now_s();
  RunResult vv = run_program(unmem(nw), Semantics::Value, ni);
  double t3 = now_s();
  auto diff = compare_results(vv.results, hv.results);
  double t4 = now_s();
  report("NW, heap semantics", hv, t2 - t1);
  report("NW, value semantics", vv, t3 - t2);
  std::printf("\nNW q=%lld b=%lld (n = %lld): validity checked in %.2f s: %s, %zu race(s)%s\n",
              static_cast<long long>(q), static_cast<long long>(b),
              static_cast<long long>(q * b + 1), t4 - t1,
              hv.error || vv.error ? "run-time error"
              : diff               ? "results differ"
                                   : "results agree",
              hv.races.size(), hv.error ? (std::string(": ") + hv.error->what()).c_str() : "");
  return hv.error || vv.error || diff || !hv.races.empty() ? 1 : 0;
}
