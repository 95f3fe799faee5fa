// Which accesses of two threads may meet (checker.h): the same or another block, the
// loop counters they share, writes that cannot race (atomics, benign equal values).
#include "frontend/race/checker.h"

namespace funmem::frontend::detail {

bool Checker::benign(const Access& x, const Access& y) const {
  // A value read from (or the address of) shared memory is one block's: alike in
  // every block only when the launch has one block, or when the object written is
  // shared too (only threads of one block write the same one).
  return opt_.equal_writes && x.write && y.write && !x.atomic && !y.atomic && x.value && y.value &&
         *x.value == *y.value &&
         (x.value->find(" shared ") == std::string::npos || x.space == Space::Shared ||
          one_block());
}

bool Checker::reads_own_value(const Access& w, const Access& r) const {
  if (!opt_.equal_writes || r.write || r.atomic || !r.exact_guards || !benign(w, w)) return false;
  auto same_interval = [&](const Access& x) {
    return x.array == r.array && x.phase == r.phase && x.grid_phase == r.grid_phase;
  };
  for (const Access& x : k_.accesses)
    if (x.write && same_interval(x) && !benign(w, x)) return false;
  for (const Access& o : k_.accesses) {
    if (&o == &r) return false; // only stores before the read
    if (o.write && same_interval(o) && o.index == r.index && o.unit == r.unit && o.guards.empty() &&
        o.exact_guards && o.loops.empty() && r.loops.empty())
      return true;
  }
  return false;
}

std::set<std::string> Checker::shared_counters(const Access& a, bool same_block) {
  std::set<std::string> s;
  if (same_block)
    for (const LoopCtx& l : a.loops)
      if (l.barrier) s.insert(l.var);
  return s;
}

std::vector<bool> Checker::concurrency(const Access& w, const Access& a) const {
  std::vector<bool> blocks;
  if (w.phase == a.phase) blocks.push_back(true);
  if (w.space == Space::Global && w.grid_phase == a.grid_phase && !opt_.only_intra_group)
    blocks.push_back(false);
  return blocks;
}

std::set<std::string> Checker::shared_counters(const Access& w, const Access& a, bool same_block) {
  std::set<std::string> shared = shared_counters(w, same_block);
  for (const std::string& x : shared_counters(a, same_block))
    shared.insert(x);
  return shared;
}

std::map<std::string, Poly> Checker::other_thread(const Access& a,
                                                  const std::set<std::string>& shared) const {
  std::map<std::string, Poly> ren;
  for (int d : dims_) {
    ren[tid(d)] = Poly::var(primed(tid(d)));
    ren[bid(d)] = Poly::var(primed(bid(d)));
  }
  for (const LoopCtx& lp : a.loops)
    if (!shared.count(lp.var)) ren[lp.var] = Poly::var(primed(lp.var));
  for (const std::string& u : k_.unknowns)
    ren[u] = Poly::var(primed(u));
  return ren;
}

} // namespace funmem::frontend::detail
