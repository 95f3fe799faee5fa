// The race checker's private header (internal to frontend/race/): the Checker class
// that decides one kernel, and the thread-space helpers its files share. Its members
// are defined by topic: checker.cpp (the verdict), concurrency.cpp, thread_sets.cpp,
// questions.cpp, asking.cpp and witness.cpp.
#pragma once

#include "frontend/model/thread_space.h"
#include "frontend/race.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace funmem::frontend::detail {

/// Which built-in dimensions the kernel (or the facts) uses: x always.
std::vector<int> dims_used(const KernelSummary& k, const std::vector<Formula>& facts);

struct Range {
  Poly lower, span;
};

/// Bounds on `var` that the guards give, solved from comparisons linear in `var` with
/// coefficient +1 or -1: (inclusive lower, exclusive upper). Expressions that mention a
/// name in `gone` (expanded already) are not used.
std::pair<std::optional<Poly>, std::optional<Poly>> guard_bounds(const std::string& var,
                                                                 const std::vector<Formula>& guards,
                                                                 const std::set<std::string>& gone);
/// The other thread's names in the guards (primed): expanded, so no bound may use them.
std::set<std::string> other_names(const std::vector<Formula>& guards);
/// The range a thread variable of the other thread takes, narrowed by its guards: a
/// superset of the threads that run the access.
Range narrow(const std::string& var, Range r, const std::vector<Formula>& guards);

/// Whether CUDA can launch these sizes: at most 1024 threads per block (1024 in x and y,
/// 64 in z), at most 2^31 - 1 blocks in x and 65535 in y and z (bounds.cpp). Sizes in
/// `fixed` are the launch facts' (a GPUVerify header may ask for 2048 threads): kept.
bool launchable(const Env& env, const std::set<std::string>& fixed);

class Checker {
public:
  Checker(const KernelSummary& k, const RaceOptions& o) : k_(k), opt_(o) {
    given_ = o.facts;
    given_.insert(given_.end(), k.preconditions.begin(), k.preconditions.end());
    dims_ = dims_used(k, given_);
    for (int d = 0; d < 3; ++d) {
      bool used = std::find(dims_.begin(), dims_.end(), d) != dims_.end();
      if (used) {
        launch_.push_back(ge(Poly::var(bdim(d)), 1));
        launch_.push_back(ge(Poly::var(gdim(d)), 1));
        launch_.push_back(ge(Poly::var(tid(d)), 0));
        launch_.push_back(lt(Poly::var(tid(d)), Poly::var(bdim(d))));
        launch_.push_back(ge(Poly::var(bid(d)), 0));
        launch_.push_back(lt(Poly::var(bid(d)), Poly::var(gdim(d))));
      }
    }
    // The parameters' type ranges (constants near 2^31) serve the range checks and the
    // pruning of C's comparison cases only: in the disjointness questions they are true
    // but slow the nonlinear ones down (a fact less never makes a proof unsound).
    without_preconditions_ = launch_;
    without_preconditions_.insert(without_preconditions_.end(), k.type_facts.begin(),
                                  k.type_facts.end());
    without_preconditions_.insert(without_preconditions_.end(), o.facts.begin(), o.facts.end());
    launch_.insert(launch_.end(), given_.begin(), given_.end());
  }

  KernelVerdict run();

private:
  const KernelSummary& k_;
  const RaceOptions& opt_;
  std::vector<Formula> given_; // the launch facts and the kernel's preconditions
  std::vector<int> dims_;
  std::vector<Formula> launch_;
  std::vector<Formula> without_preconditions_; // launch_ without the kernel's preconditions
  std::vector<Env> models_;                    // assignments of the overlaps the prover found
  std::map<std::string, ProveResult> cache_;   // equal questions (a += reads and writes)

  uint64_t work0_ = 0; // the thread's Z3 work when the kernel's check began
  int guards0_ = 0;    // the thread's wall-clock guard stops then
  /// The kernel's budget (RaceOptions::budget_ms) of Z3 work is spent.
  bool over_budget() const;
  /// When the facts the model states about values (unknowns, parameters' types) contradict
  /// each other (a modelling error: every question was vacuous), sets `first_open`.
  void check_value_facts(std::string& first_open) const;

  void check_assertions(KernelVerdict& v) const;

  /// CUDA's launch limits on the sizes the launch facts do not fix (bounds.cpp).
  void add_launch_limits(std::vector<Formula>& fs) const;
  /// What the loops' counters satisfy: their facts, and `k = lower + step * j`.
  static void add_loop_facts(const std::vector<LoopCtx>& loops, std::vector<Formula>& fs);
  /// Drops the disjuncts of the launch facts and preconditions that CUDA's launch
  /// limits exclude (ranges.cpp).
  void prune_given();

public:
  /// The summary with the disjuncts of its accesses' guards that the launch facts,
  /// preconditions and parameter types exclude dropped (ranges.cpp).
  KernelSummary pruned_guards() const;

private:
  /// The facts a case of a two-case comparison is pruned against (ranges.cpp): the
  /// launch facts that are no disjunction, the parameters' types, CUDA's limits.
  std::vector<Formula> case_facts() const;
  /// `f` without the cases the facts exclude; nullopt when none or all go.
  std::optional<Formula> surviving_cases(const Formula& f, const std::vector<Formula>& facts) const;
  /// The extractor's range checks (ranges.cpp): the first that leaves a wrap open sets
  /// `first_open` (unless set); `assumed` gets what a race-free verdict assumes;
  /// `open_wraps` the wrap_key of every wrap C defines that is not proved absent,
  /// `open_obligations` that of every loop summary's obligation not proved.
  void range_checks(std::string& first_open, std::vector<std::string>& assumed,
                    std::vector<std::string>& open_wraps,
                    std::vector<std::string>& open_obligations) const;
  /// Why `a` may leave its object (an object of known size: a variable), or "" when
  /// the facts keep it inside (bounds.cpp).
  std::string leaves_object(const Access& a) const;
  /// Every access that may leave its object: when an access of another object of its
  /// memory may run beside it (one of the two a write), `first_open` says so (unless set
  /// already); otherwise `note` names the first one.
  void object_bounds(std::string& first_open, std::string& note) const;

  /// The names a launch chooses: the used dimensions' sizes and the scalar parameters.
  std::vector<std::string> knobs() const;

  bool benign_ = false;              // a pair of writes of one value was not asked
  bool searched_ = false;            // the search before the full prover ran
  std::optional<RaceWitness> early_; // a race it found
  int64_t linear(const std::vector<int64_t>& t) const {
    return t[0] + t[1] * bsize_[0] + t[2] * bsize_[0] * bsize_[1];
  }
  std::vector<int64_t> bsize_ = {1, 1, 1}; // the block size of the launch searched
  /// Two writes of one value, with equal_writes on.
  bool benign(const Access& x, const Access& y) const;
  /// With equal_writes on, a read `r` of what its thread itself stored before it in the
  /// same barrier interval, unconditionally and at the same place, where every write of
  /// the object in that interval stores the value `w` stores: whichever write it sees,
  /// it reads that value, so the write `w` of another thread does not change it.
  bool reads_own_value(const Access& w, const Access& r) const;
  /// Under equal_writes: a pair that cannot see different values (either of the above).
  bool equal_values(const Access& w, const Access& a) const {
    return benign(w, a) || reads_own_value(w, a);
  }
  bool one_block() const;

  void finish(KernelVerdict& v, std::chrono::steady_clock::time_point t0) const;
  /// Why a question leaves the verdict open. An `overlap` there is one of the sets the
  /// question compares (supersets of what two threads access), not a witness: said so.
  static std::string open_question(const QuestionResult& q) {
    std::string s = q.what + ": " + answer_name(q.result.answer);
    if (q.result.answer == Answer::Overlap)
      s += " of the access sets this question compares, which may be larger than what "
           "two threads access: not a witness";
    if (!q.result.reason.empty()) s += " (" + q.result.reason + ")";
    return s;
  }

  /// The loops of `a` whose counters both threads share in a same-block question: those
  /// with a barrier in their body (both threads are in the same iteration).
  static std::set<std::string> shared_counters(const Access& a, bool same_block);

  /// When `w` and `a` may run concurrently: in one block (true) if they are in the same
  /// barrier interval (and the same iteration of loops with barriers); in different
  /// blocks (false) if global, between the same grid barriers.
  /// Under only_intra_group, threads of different blocks are not asked.
  std::vector<bool> concurrency(const Access& w, const Access& a) const;
  static std::set<std::string> shared_counters(const Access& w, const Access& a, bool same_block);
  /// The other thread's names for `a`: primed built-in indices, loop counters (those not
  /// `shared`) and unknowns (values the extractor does not follow are each thread's own).
  std::map<std::string, Poly> other_thread(const Access& a,
                                           const std::set<std::string>& shared) const;

  /// The set of elements one thread touches with `a` (its loops expanded, shared
  /// counters kept), with names renamed by `ren`; the names expanded are added to
  /// `expanded`.
  std::optional<SymLmad> set_of(const Access& a, const std::map<std::string, Poly>& ren,
                                const std::set<std::string>& shared,
                                std::set<std::string>& expanded, std::string* why);

  /// The range of t's own thread variable `var` narrowed by t's guards (names expanded
  /// already are not used).
  static Range narrow_own(const std::string& var, Range r, const std::vector<Formula>& guards,
                          const std::set<std::string>& gone);

  /// The prover, then case splits on the uniform names of the strides and counts that
  /// are at least 1: every name >= 2, and each subset of them equal to 1 (substituted).
  /// Blocked layouts are separated by one interval pair when the sizes are >= 2; the
  /// size-1 cases are simpler sets.
  ProveResult prove_cases(const SymLmad& l1, const SymLmad& l2, const std::vector<Formula>& facts,
                          bool quick);

  /// Expands the other thread's set over `var` in `r`.
  static std::optional<SymLmad> over(const SymLmad& l, const std::string& var, const Range& r) {
    return lmad_expand(var, r.lower, r.span, l);
  }

  /// A diagonal dimension (c : s1 + k) of `l`, with s1 a stride of either set and k a
  /// positive constant, boxed into (c : s1), (c : k) (a superset: the diagonal of its
  /// square), so that its strides match the other set's rows and columns; nullopt when
  /// there is none.
  static std::optional<SymLmad> box_diagonals(const SymLmad& l, const SymLmad& other);

  /// Linear comparisons scaled by the (positive) block sizes: `it + 1 + blockIdx.x < nb`
  /// gives `b*it + b + b*blockIdx.x < b*nb` for b = blockDim.x, the non-linear fact a
  /// blocked layout's column bound needs and the side conditions do not find alone.
  void add_products(std::vector<Formula>& facts) const;

  /// A launch size fixed by the facts (`blockDim.x == 16`), if any.
  std::optional<int64_t> fixed_size(const std::string& name) const;

  /// Another block's thread t' often uses a block index and a thread index only as
  /// `K * blockIdx' + threadIdx'` with K its (fixed) block size (a global index, possibly across
  /// dimensions, as a transpose does). That pair of ranges is exactly one range of the
  /// global index g' = [K * lower, K * (lower + count)), on which guards such as
  /// `g' < height` can act -- the product of the two ranges cannot express them. The
  /// LMAD and guards are rewritten with threadIdx' = g' - K * blockIdx' where that
  /// removes the block index; `merged` gets both names, `ids` each g' with its range
  /// and whether it comes from the split dimension.
  void merge_global_ids(SymLmad& l, std::vector<Formula>& guards, size_t di, bool below,
                        std::set<std::string>& merged,
                        std::vector<std::tuple<std::string, Range, int>>& ids) const;

  /// Every question for the pair (a write of t, an access of t').
  /// The questions of a pair, first with the built-ins over their whole ranges, then,
  /// for those not proved, with the ranges the accesses' guards give (either is a
  /// superset of the threads that access; which one is tighter depends on the sizes).
  void pair(const Access& w, const Access& a, KernelVerdict& v, std::string& first_open);

  /// The pair's question as one formula over the two accesses (no sets): is there a
  /// thread t running `w` and another thread t' running `a` concurrently, at the same
  /// unit? Loops become iteration variables (k = lower + step * j, 0 <= j < count, and
  /// the loop's facts), guards are conditions, unknowns are free, t' has its own names.
  /// With the launch sizes known the formula is linear (div and mod by constants) and
  /// Z3 decides it; unsat proves every question of the pair (`v`'s are marked so).
  bool accesses_question(const Access& w, const Access& a, KernelVerdict& v);

  /// One pass over a pair's questions (pair() plans them): how the prover is asked.
  struct Pass {
    bool quick = false;             // SOSI only: no Z3 on the whole question, no witness search
    bool narrow_threads = false;    // the other thread's guards narrow its ranges
    bool same_block_guards = false; // same block: t' guards' block indices are t's
    const KernelVerdict* proved = nullptr; // an earlier pass: its disjoint answers are kept
  };
  void questions(const Access& w, const Access& a, const Pass& pass, KernelVerdict& v,
                 std::string& first_open);
  /// This thread's side of a pair's questions in one concurrency (the same block or
  /// another): its set, the names expanded in it, the facts, why a set is missing.
  struct PairSets {
    bool same_block = false;
    std::optional<SymLmad> l1;
    std::set<std::string> exp1;
    std::vector<Formula> facts;
    std::string why;
  };
  /// A question of one split of the thread space: what it asks, the other threads' set,
  /// and the dimensions of t's block kept at the block's size.
  using SplitQuestion = std::tuple<std::string, std::optional<SymLmad>, std::set<int>>;
  /// The facts of a pair: the launch, t's guards on names that are not expanded, the
  /// shared counters' loops, the unknowns' bounds (for both threads).
  std::vector<Formula> pair_facts(const Access& w, const Access& a,
                                  const std::map<std::string, Poly>& ren,
                                  const std::set<std::string>& shared,
                                  const std::set<std::string>& exp1) const;
  /// The other thread's guards on its own thread variables (they narrow its ranges).
  std::vector<Formula> other_guards(const Access& a, const std::map<std::string, Poly>& ren,
                                    bool same_block, const Pass& pass) const;
  /// One question per built-in dimension and side (below, above) where t' differs from t.
  std::vector<SplitQuestion> split_questions(const std::optional<SymLmad>& l2,
                                             const std::vector<Formula>& guards2, bool same_block);
  /// Asks one question (or takes it from an earlier pass or the cache) and records it.
  void ask(const Access& w, const Access& a, const Pass& pass, const PairSets& p,
           const std::string& what, const std::optional<SymLmad>& l, const std::set<int>& keep,
           KernelVerdict& v, std::string& first_open);

  // ------------------------------------------------------------ witness search

  struct Event {
    int access;
    int64_t address;
    std::vector<int64_t> block, thread;
    std::vector<int64_t> shared_key; // values of counters of loops with barriers
    std::optional<int64_t> stored;   // a write's value, where it is known (Access::stored)
  };

  /// Enumerates thread pairs on small launches for two conflicting accesses.
  std::optional<RaceWitness> search();

  /// Launch facts `knob == e` (`blockDim.x == n`) decide the knob from the others'
  /// values, so that candidates meet them.
  void settle_equalities(Env& env, const std::vector<std::string>& knobs) const;

  /// `budget` counts accesses enumerated and range checks replayed, `pairs` the pairs of
  /// accesses compared: both shared by every launch of one search.
  std::optional<RaceWitness> search_launch(const Env& launch, int& budget, int64_t& pairs);

  static std::string triple(const std::vector<int64_t>& v);
  static std::string describe(const Event& e, const Access& a);

  /// The concrete iterations of access `a`'s loops from level `depth` on.
  void walk(int a, size_t depth, Env& env, const std::vector<int64_t>& bi,
            const std::vector<int64_t>& ti, const std::vector<int64_t>& key,
            std::vector<Event>& out, int& budget);
  /// Whether every range check on the path of the thread (block bi, thread ti) holds at
  /// the launch: only then are the replayed polynomials C's values (false when unsure).
  bool in_range(const Env& launch, const std::vector<int64_t>& bi, const std::vector<int64_t>& ti,
                int& budget) const;
  bool range_holds(const RangeCheck& rc, size_t depth, Env& env, int& budget) const;
};

} // namespace funmem::frontend::detail
