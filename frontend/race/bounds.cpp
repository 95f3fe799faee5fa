// The race checker (checker.h): whether each access stays inside its object. Objects are
// checked apart, which holds only for accesses that stay inside them: a thread indexing
// one `__shared__` array out of its bounds reaches whatever the compiler placed next to
// it. An access to an object of known size that may leave it is therefore paired with
// every access of the other objects of its memory that may run concurrently; such a pair
// leaves the kernel `unknown` (the layout is the compiler's), never `race-free`.
#include "frontend/race/checker.h"

namespace funmem::frontend::detail {

namespace {

/// CUDA's limits on a launch (compute capability 2.0 and later): a block has at most
/// 1024 threads in x and y and 64 in z; a grid at most 2^31 - 1 blocks in x and 65535 in
/// y and z. Sizes the launch facts fix are left to them (a GPUVerify header may ask for
/// 2048 threads; the limit would contradict it and prove anything).
void launch_limits(const std::vector<int>& dims, const std::set<std::string>& fixed,
                   std::vector<Formula>& fs) {
  const int64_t block[3] = {1024, 1024, 64}, grid[3] = {2147483647, 65535, 65535};
  for (int d : dims) {
    if (!fixed.count(bdim(d))) fs.push_back(le(Poly::var(bdim(d)), block[d]));
    if (!fixed.count(gdim(d))) fs.push_back(le(Poly::var(gdim(d)), grid[d]));
  }
}

} // namespace

void Checker::add_launch_limits(std::vector<Formula>& fs) const {
  std::set<std::string> fixed;
  for (int d = 0; d < 3; ++d)
    for (const std::string& n : {bdim(d), gdim(d)})
      if (fixed_size(n)) fixed.insert(n);
  launch_limits(dims_, fixed, fs);
}

void Checker::add_loop_facts(const std::vector<LoopCtx>& loops, std::vector<Formula>& fs) {
  int iters = 0;
  for (const LoopCtx& lp : loops) {
    fs.insert(fs.end(), lp.facts.begin(), lp.facts.end());
    if (lp.geometric || lp.step == Poly(1)) continue;
    Poly j = Poly::var("fm_iteration_" + std::to_string(iters++));
    fs.push_back(eq(Poly::var(lp.var), lp.lower + lp.step * j));
    fs.push_back(ge(j, 0));
    fs.push_back(lt(j, lp.count));
  }
}

bool launchable(const Env& env, const std::set<std::string>& fixed) {
  const int64_t block[3] = {1024, 1024, 64}, grid[3] = {2147483647, 65535, 65535};
  int64_t threads = 1;
  bool product = true;
  for (int d = 0; d < 3; ++d) {
    auto b = env.find(bdim(d)), g = env.find(gdim(d));
    if (b != env.end()) {
      if (fixed.count(bdim(d)))
        product = false;
      else if (b->second > block[d])
        return false;
      threads *= b->second;
    }
    if (g != env.end() && !fixed.count(gdim(d)) && g->second > grid[d]) return false;
  }
  return !product || threads <= 1024;
}

std::string Checker::leaves_object(const Access& a) const {
  auto size = k_.object_bytes.find(a.array);
  if (size == k_.object_bytes.end()) return "";
  std::vector<Formula> fs = launch_;
  add_launch_limits(fs);
  fs.insert(fs.end(), k_.unknown_facts.begin(), k_.unknown_facts.end());
  add_loop_facts(a.loops, fs);
  fs.insert(fs.end(), a.guards.begin(), a.guards.end());
  // The access covers bytes [unit * index, unit * index + unit).
  const Poly first = a.index * Poly(a.unit);
  std::vector<Formula> outside = {lt(first, 0)};
  if (size->second >= 0)
    outside.push_back(Formula::cmp(first, Rel::Gt, Poly(size->second - a.unit)));
  // With the kernel's budget spent, not proved: it may leave.
  SatResult r = SatResult::Unknown;
  if (!over_budget()) {
    Solver s(fs, opt_.prover.timeout_ms);
    r = s.check({Formula::disj(outside)}, {}, nullptr, opt_.prover.timeout_ms);
  }
  if (r == SatResult::Unsat) return "";
  const std::string where = std::to_string(a.pos.line) + ":" + std::to_string(a.pos.col);
  return where + ": '" + a.text + "' " +
         (r == SatResult::Sat && a.exact_guards ? "leaves" : "may leave") + " its object " +
         a.array +
         (size->second >= 0 ? " (" + std::to_string(size->second) + " bytes)"
                            : " (below its start)");
}

void Checker::object_bounds(std::string& first_open, std::string& note) const {
  for (const Access& x : k_.accesses) {
    const std::string out = leaves_object(x);
    if (out.empty()) continue;
    // Where it may land: any other object of its memory (shared memory, or the file's
    // `__device__` variables), so a pair with each concurrent access of one, one a write.
    const Access* met = nullptr;
    for (const Access& y : k_.accesses) {
      if (y.array == x.array || y.space != x.space || !k_.object_bytes.count(y.array)) continue;
      if (!x.write && !y.write) continue;
      if (concurrency(x, y).empty() && concurrency(y, x).empty()) continue;
      met = &y;
      break;
    }
    if (!met) {
      if (note.empty()) note = out + ", where no other object's access runs beside it";
      continue;
    }
    if (first_open.empty())
      first_open = out + ", perhaps into " + met->array + ", which '" + met->text + "' at " +
                   std::to_string(met->pos.line) + ":" + std::to_string(met->pos.col) +
                   " accesses concurrently";
  }
}

} // namespace funmem::frontend::detail
