// The race checker (checker.h): the extractor's range checks (extract.h, RangeCheck).
// Its polynomials are C's values only where they stay in their types' ranges; each check
// is proved under the guards and loops of the use, the launch facts and CUDA's launch
// limits. Where that fails, the grid's global indices are assumed to fit in 31 bits (as
// `int i = blockIdx.x * blockDim.x + threadIdx.x` assumes; said in the verdict); what
// still fails leaves the verdict `unknown` for a wrap C defines, and an assumption (said)
// for a signed overflow, which C leaves undefined.
#include "frontend/race/checker.h"

namespace funmem::frontend::detail {

void Checker::range_checks(std::string& first_open, std::vector<std::string>& assumed) const {
  std::set<std::string> asked;
  bool index_assumed = false;
  int undefined = 0;
  std::string first_undefined;
  const size_t without = launch_.size() - k_.preconditions.size();
  for (const RangeCheck& rc : k_.range_checks) {
    std::vector<Formula> fs(launch_.begin(), rc.before_preconditions
                                                 ? launch_.begin() + static_cast<long>(without)
                                                 : launch_.end());
    add_launch_limits(fs);
    fs.insert(fs.end(), k_.unknown_facts.begin(), k_.unknown_facts.end());
    add_loop_facts(rc.loops, fs);
    fs.insert(fs.end(), rc.guards.begin(), rc.guards.end());
    std::string key = rc.cond.to_string() + (rc.undefined ? "!" : "?");
    for (const Formula& f : fs)
      key += "|" + f.to_string();
    if (!asked.insert(key).second) continue;
    const std::vector<Formula> goal = {negation(rc.cond)};
    Solver s(fs, opt_.prover.timeout_ms);
    if (s.check(goal, {}, nullptr, opt_.prover.timeout_ms) == SatResult::Unsat) continue;
    // Fewer than 2^31 threads in each dimension of the grid.
    for (int d : dims_) {
      fs.push_back(le(Poly::var(bid(d)) * Poly::var(bdim(d)) + Poly::var(tid(d)),
                      Poly((int64_t{1} << 31) - 1)));
      fs.push_back(le(Poly::var(gdim(d)) * Poly::var(bdim(d)), Poly((int64_t{1} << 31) - 1)));
    }
    Solver s2(fs, opt_.prover.timeout_ms);
    if (s2.check(goal, {}, nullptr, opt_.prover.timeout_ms) == SatResult::Unsat) {
      index_assumed = true;
      continue;
    }
    const std::string where = std::to_string(rc.pos.line) + ":" + std::to_string(rc.pos.col);
    if (rc.undefined) {
      if (undefined++ == 0) first_undefined = "'" + rc.text + "' at " + where;
      continue;
    }
    if (first_open.empty())
      first_open = where + ": '" + rc.text + "' may leave the range of " + rc.type +
                   " (C wraps it; the model does not follow)";
  }
  if (index_assumed) assumed.push_back("fewer than 2^31 threads in each dimension of the grid");
  if (undefined > 0)
    assumed.push_back("no signed overflow in " + first_undefined +
                      (undefined > 1 ? " (and " + std::to_string(undefined - 1) + " more)" : ""));
}

} // namespace funmem::frontend::detail
