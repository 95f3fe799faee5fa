// Array short-circuiting (thesis chapter 6) on FUNMEM, pass id `sc`.
//
// A short-circuit point puts a source array x into a place of a destination:
//   update         `let ys2 = ys with [S] = x`     place slice(L_ys, S)       (6.3)
//   concat operand `let ys = concat a x`           place slice(L_ys, [n_a : n_x])
//   kernel result  `let ys = kernel i < n do ... in (x)`   place fix(L_ys, i)
// The attempt walks back from the point to the creation of x (kernel, iota, replicate,
// copy, scratch, and concat, which also writes a fresh array), through transposes
// (reversed, 6.4.1) and in-place updates of x; any other view on that path refuses the
// attempt. It then checks, bottom-up as in 6.4-6.6:
//   - last use: neither x nor an alias of x is used after the point;
//   - 6.2 (1): the destination's memory exists before x is created (an `alloc` may be
//     lifted above the creation);
//   - 6.4.2: the names of the projected LMAD are in scope at the creation, or their
//     scalar definitions can be lifted there without depending on x;
//   - bounds: the updated slice lies inside the destination (so a program that would
//     fail with a bounds error still fails before writing outside the slice);
//   - 6.4.3: no write of x or an alias (creation, updates; with their projected LMADs)
//     overlaps a later use of the destination's memory (U_ys: reads and writes through
//     any array in a block that may be the destination's at run time). Uses inside
//     kernels and loops are aggregated with EXPAND; a kernel that creates x is checked
//     per thread (U^{!=i} against fix(L_x, i), 6.6.2); when the point itself is inside a
//     kernel whose threads share the destination, the writes of one thread are checked
//     against the uses of the others. Uses that cannot be summarised (an index that is not
//     affine in an iterator) make the summary undeterminable and the attempt fail.
// Every overlap question goes to the prover (prover.h) with the program's facts: integer
// `let` definitions and `assume`s before the point, kernel and loop bounds, and array
// sizes >= 0. On success x and every alias get the destination's memory and their
// projected LMADs, the copy at the point copies a value onto itself (the interpreters
// and funmem-to-imp elide it), lifted statements move above the creation, and an `alloc`
// no longer mentioned is removed. Points are tried bottom-up, so chains resolve in one
// pass: in NW `tmp` goes into `xs` first, then `blk` into `tmp`'s new place, then `row`.
//
// In-place scalar maps (6.9), counted separately: `let ys = kernel i < n do ... xs[i]
// ... in (s)` with a scalar result builds ys in xs's memory when xs is read only there,
// only at [i], has ys's element type and index function, and neither xs nor anything else
// in its memory is used after the kernel.
#pragma once

#include "analysis/prover.h"
#include "ir/ast.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace funmem {

enum class ScKind { Update, Concat, KernelResult, Copy, ScalarMap };
const char* sc_kind_name(ScKind k);

/// One non-overlap question of an attempt and the prover's answer.
struct ScProof {
  std::string check; // "6.4.3", "6.6.2 other threads", ...
  std::string write; // the write of the source, with its place
  std::string use;   // the use of the destination
  std::string answer;
};

struct ScAttempt {
  ScKind kind = ScKind::Update;
  Pos pos;               // the point
  std::string source;    // x
  std::string dest;      // ys
  std::string dest_mem;  // the destination's memory block
  std::string projected; // the projected LMAD of x
  std::string creation;  // "iota at 9:3" (when reached)
  bool proved = false;
  std::string property; // refused: the safety property that failed
  std::string reason;   // refused: the offending access and why
  std::string rule;     // refused: the rule of sc_rules() that refused it
  std::vector<ScProof> proofs;
  std::vector<std::string> lifted;    // statements moved above the creation (6.4.2)
  std::vector<std::string> rewritten; // arrays that now live in the destination's memory
  std::vector<std::string> removed;   // allocations removed
  double ms = 0;                      // time spent on the attempt
  int queries = 0, z3_calls = 0;      // solver questions, and those Z3 had to answer
  std::vector<std::string> fired;     // transformation rules of sc_rules() it applied
};

struct ScReport {
  std::vector<ScAttempt> attempts;
  /// Successful points of the kinds update, concat and kernel result (6.9 not counted).
  int proved_points() const;
  int scalar_maps() const; // successful in-place scalar maps
  int refused() const;
  double ms = 0;
  /// Rules of sc_rules() that fire outside an attempt's outcome, with their counts: the
  /// hoisting of a destination refused, facts dropped.
  std::map<std::string, int64_t> events;
};

/// One rule of docs/short-circuit.md that an attempt can exercise: a proof obligation
/// discharged, a transformation applied, or a refusal.
struct ScRule {
  const char* id;   // "proved: bounds", "refused: bounds: blocked by a statement that may fail"
  const char* what; // one line for the coverage table
};
/// Every rule, in the order of docs/short-circuit.md.
const std::vector<ScRule>& sc_rules();
/// Adds to `counts` how often the report's attempts exercised each rule (ids of
/// sc_rules(); an id that is not one is counted under its own name, which a test
/// forbids).
void count_sc_rules(const ScReport& r, std::map<std::string, int64_t>& counts);

struct ScOptions {
  /// The prover's budget per question. An attempt asks many questions and a refusal
  /// needs no witness, so fewer witness candidates are tried than by funmem-prove; the
  /// time limits stay generous so that a loaded machine does not turn a proof into
  /// `unknown` (a refusal, never a wrong proof).
  ProverOptions prover = [] {
    ProverOptions o;
    o.search_timeout_ms = 1000;
    o.witness_candidates = 500;
    return o;
  }();
  // Deliberately broken variants, for the fuzzer's tests (analysis/pipeline.h).
  bool broken_no_overlap = false;    // the 6.4.3 non-overlap checks are skipped
  bool broken_late_facts = false;    // bounds are proved with facts from after the creation
  bool broken_float_facts = false;   // facts over floats are kept (class 2)
  bool broken_never_fails = false;   // every statement is judged unable to fail (classes 3, 9-11)
  bool broken_scratch = false;       // a scratch source stays a scratch (class 5)
  bool broken_no_injective = false;  // the place's injectivity is not checked (class 6)
  bool broken_chain_check = false;   // a point may come before a destination's run-time check
  bool broken_outside_block = false; // layouts are taken inside their blocks, addresses unwrapped
  bool broken_shared_block = false;  // a block the attempt takes over may hold other arrays
  bool broken_elemtype = false;      // reads are taken to meet their own element type
  bool broken_check_arith = false;   // a run-time check computes start + (count-1)*stride (class 8)
  bool broken_hoist_use = false;     // a hoist may pass uses of the blocks it moves (class 7)
  // a read of the creating if's other result is lifted above it (class 4)
  bool broken_lift_if_result = false;
  // the other branch's uses of an outside result are not the destination's (class 13)
  bool broken_branch_uses = false;
  // an if's outside result may be viewed, updated or passed on in its branches (class 14)
  bool broken_outside_uses = false;
};

/// Short-circuits every point it can prove safe; the result type-checks and is valid
/// whenever the input is.
Program short_circuit(const Program& p, ScReport* report = nullptr, const ScOptions& opt = {});

/// The report for people: one block per attempt.
std::string sc_report_text(const ScReport& r);

} // namespace funmem
