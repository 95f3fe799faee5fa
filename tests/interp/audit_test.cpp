// Tests of the cell audit of the heap semantics (Limits::audit, docs/interpreters.md):
// it catches a read of a cell that no longer holds the array's element even when the
// values happen to agree, and it never fires on a program whose heap run is right.
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/typecheck.h"
#include "ir/unmem.h"

#include <catch2/catch.hpp>

using namespace funmem;

namespace {

/// The heap run of a FUNMEM program (with or without the audit) and its value semantics.
struct Runs {
  RunResult value, heap;
};

Runs run(const std::string& text, const std::string& in, bool audit) {
  ParseResult r = parse_program(text, Lang::FunMem);
  INFO(text << (r.error ? r.error->message : ""));
  REQUIRE(r.program);
  auto diags = typecheck(*r.program);
  INFO((diags.empty() ? "" : diags[0].message));
  REQUIRE(diags.empty());
  Diagnostic d;
  auto set = parse_input_set(in, &d);
  REQUIRE(set);
  Inputs i = make_inputs(r.program->def, &*set, 1);
  for (auto& b : r.program->def.params)
    if (b.type && b.type->kind == Type::Kind::Mem) i[b.name.s].is_mem = true;
  Limits lim;
  lim.audit = audit;
  return {run_program(unmem(*r.program), Semantics::Value, i),
          run_program(*r.program, Semantics::Heap, i, lim)};
}

std::string where(const RunError& e) {
  return std::to_string(e.pos.line) + ":" + std::to_string(e.pos.col);
}

/// The audit error of a program whose heap run, without the audit, ends with the value
/// semantics' results (and, with `elided`, elides one copy).
RunError caught_by_audit_only(const std::string& prog, const std::string& in, bool elided = false) {
  Runs plain = run(prog, in, false);
  REQUIRE_FALSE(plain.heap.error);
  if (elided) CHECK(plain.heap.stats.elided == 1);
  CHECK_FALSE(compare_results(plain.value.results, plain.heap.results));
  Runs audited = run(prog, in, true);
  REQUIRE(audited.heap.error);
  CHECK(audited.heap.error->kind == "audit");
  return *audited.heap.error;
}

} // namespace

TEST_CASE("the audit catches a live array clobbered with equal values", "[interp][audit]") {
  const char* prog = "def f (n : i64) : (mem, [n], mem, [n]) =\n"
                     "  let (m : mem) = alloc n\n"
                     "  let (a : [n]@m -> R(n)) = replicate n 7\n"
                     "  let (b : [n]@m -> R(n)) = replicate n 7\n"
                     "  in (m, a, m, b)";
  const RunError e = caught_by_audit_only(prog, "n=3"); // the values agree
  CHECK(where(e) == "5:10");                            // reading the result a
  CHECK(std::string(e.what()) ==
        "reads m[0], which the write at 4:29 changed after the array read here was complete");
}

TEST_CASE("the audit catches a scratch array read on old values", "[interp][audit]") {
  const char* prog = "def f (n : i64) : (i64, mem, [n]) =\n"
                     "  let (m : mem) = alloc n\n"
                     "  let (a : [n]@m -> R(n)) = replicate n 0\n"
                     "  let (s : i64) = a[0]\n"
                     "  let (b : [n]@m -> R(n)) = scratch\n"
                     "  let (c : [n]@m -> R(n)) = b with [0] = 1\n"
                     "  in (s, m, c)";
  // The old values are zeros, as the value semantics' scratch: only the audit sees it.
  const RunError e = caught_by_audit_only(prog, "n=3");
  CHECK(std::string(e.what()) ==
        "reads m[1], which still holds an old value under the scratch array of 5:29 (the "
        "value semantics reads 0)");
  // In a fresh block the scratch array's cells read as zeros, as in the value semantics.
  const char* fresh = "def f (n : i64) : (mem, [n]) =\n"
                      "  let (m : mem) = alloc n\n"
                      "  let (b : [n]@m -> R(n)) = scratch\n"
                      "  let (c : [n]@m -> R(n)) = b with [0] = 1\n"
                      "  in (m, c)";
  Runs ok = run(fresh, "n=3", true);
  CHECK_FALSE(ok.heap.error);
  CHECK_FALSE(compare_results(ok.value.results, ok.heap.results));
}

TEST_CASE("the audit checks the source of an elided copy", "[interp][audit]") {
  // x is built in place in ys0's cells 0..3, then z overwrites them with equal values;
  // the update's copy of x onto itself is elided, and its reads are audited.
  const char* prog = "def f (ym : mem) (ys0 : [8]@ym -> R(8)) : (mem, [8]) =\n"
                     "  let (x : [4]@ym -> R(4)) = replicate 4 1\n"
                     "  let (z : [4]@ym -> R(4)) = replicate 4 1\n"
                     "  let (ys : [8]@ym -> R(8)) = ys0 with [0 : 4] = x\n"
                     "  in (ym, ys)";
  const RunError e = caught_by_audit_only(prog, "ys0=iota", true);
  CHECK(where(e) == "4:50");
}

TEST_CASE("the audit checks the elements an update keeps", "[interp][audit]") {
  // b is built over a, then a is updated: c keeps a's other elements, which are b's.
  const char* prog = "def f (n : i64) : (mem, [n]) =\n"
                     "  let (am : mem) = alloc n\n"
                     "  let (a : [n]@am -> R(n)) = iota n\n"
                     "  let (b : [n]@am -> R(n)) = iota n\n"
                     "  let (c : [n]@am -> R(n)) = a with [0] = 5\n"
                     "  in (am, c)";
  const RunError e = caught_by_audit_only(prog, "n=4");
  CHECK(where(e) == "6:11"); // the result reads a cell c keeps from a
  CHECK(std::string(e.what()) ==
        "reads am[1], which the write at 4:30 changed after the array read here was complete");
}

TEST_CASE("the audit passes right heap runs: in place, views, loops, kernels", "[interp][audit]") {
  // Listing 6.2 after short-circuiting, an in-place loop and an in-place scalar map.
  const char* antidiag = "def antidiag (ym : mem) (ys0 : [16]@ym -> R(16)) : (mem, [16]) =\n"
                         "  let (v : [4]@ym -> 3 + {(4 : 3)}) = ys0[3 + {(4 : 3)}]\n"
                         "  let (x : [4]@ym -> 3 + {(4 : 3)}) = kernel i < 4 do\n"
                         "    let t = v[i]\n    let u = t + 1\n    in (u)\n"
                         "  let (ys : [16]@ym -> R(16)) = ys0 with [3 + {(4 : 3)}] = x\n"
                         "  in (ym, ys)";
  const char* loop = "def f (n : i64) (xm : mem) (xs : [n]@xm -> R(n)) : (mem, [n]) =\n"
                     "  let (r : [n]@xm -> R(n)) = loop (a : [n]@xm -> R(n)) = (xs) for i < n do\n"
                     "    let t = a[i]\n"
                     "    let u = t * 2\n"
                     "    let (a2 : [n]@xm -> R(n)) = a with [i] = u\n"
                     "    in (a2)\n"
                     "  in (xm, r)";
  const char* map = "def f (n : i64) (xm : mem) (xs : [n]@xm -> R(n)) : (mem, [n]) =\n"
                    "  let (ys : [n]@xm -> R(n)) = kernel i < n do\n"
                    "    let t = xs[i]\n    let u = t + 1\n    in (u)\n"
                    "  in (xm, ys)";
  // sc's output for a scratch array updated in full: the update's value is built in
  // place before the scratch array is placed on it (found by funmem-fuzz --seed 4242).
  const char* scratch = "def f (n : i64) : (mem, [n]) =\n"
                        "  let (m : mem) = alloc n\n"
                        "  let (x : [n]@m -> R(n)) = replicate n 3\n"
                        "  let (s : [n]@m -> R(n)) = scratch\n"
                        "  let (y : [n]@m -> R(n)) = s with [0 : n] = x\n"
                        "  in (m, y)";
  for (const char* prog : {antidiag, loop, map, scratch}) {
    const std::string in = prog == antidiag ? "ys0=iota" : prog == scratch ? "n=5" : "n=5 xs=iota";
    Runs r = run(prog, in, true);
    INFO(prog << "\n" << (r.heap.error ? r.heap.error->what() : ""));
    CHECK_FALSE(r.heap.error);
    CHECK_FALSE(compare_results(r.value.results, r.heap.results));
  }
}

TEST_CASE("a race is reported as a race, not as an audit error", "[interp][audit]") {
  // Iteration 1 reads the cell iteration 0 wrote: the race records name it.
  const char* prog = "def f (n : i64) (xm : mem) (xs : [n]@xm -> R(n)) : (mem, [n]) =\n"
                     "  let (ys : [n]@xm -> R(n)) = kernel i < n do\n"
                     "    let j = i / 2\n"
                     "    let t = xs[j]\n    in (t)\n"
                     "  in (xm, ys)";
  Runs r = run(prog, "n=4 xs=iota", true);
  CHECK(r.heap.races.size() == 1);
}
