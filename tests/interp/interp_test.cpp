// Tests of the reference interpreters (interp/interp.h): each rule of the FUN value
// semantics (fig. 4.4) and the FUNMEM heap semantics (figs. 4.8-4.10), run-time
// errors, inputs and limits. Programs are parsed and type-checked first.
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/typecheck.h"
#include "ir/unmem.h"

#include <catch2/catch.hpp>

using namespace funmem;

namespace {

Program program(const std::string& text, Lang lang) {
  ParseResult r = parse_program(text, lang);
  INFO(text << (r.error ? r.error->message : ""));
  REQUIRE(r.program);
  auto diags = typecheck(*r.program);
  INFO((diags.empty() ? "" : diags[0].message));
  REQUIRE(diags.empty());
  return *r.program;
}

Inputs inputs(const Program& p, const std::string& line, uint64_t seed = 1) {
  Diagnostic d;
  auto set = parse_input_set(line, &d);
  INFO(d.message);
  REQUIRE(set);
  return make_inputs(p.def, &*set, seed);
}

RunResult value(const std::string& text, const std::string& in, const Limits& lim = {}) {
  Program p = program(text, Lang::Fun);
  return run_program(p, Semantics::Value, inputs(p, in), lim);
}

/// The value semantics of a program that is parsed but not type-checked.
RunResult unchecked_value(const std::string& text, const std::string& in) {
  ParseResult r = parse_program(text, Lang::Fun);
  REQUIRE(r.program);
  return run_program(*r.program, Semantics::Value, inputs(*r.program, in));
}

std::vector<int64_t> ints(const Data& d) {
  std::vector<int64_t> out;
  for (auto& s : d.elems)
    out.push_back(s.i);
  return out;
}

/// Runs a FUNMEM program under both semantics (the value one after unmem).
struct Both {
  RunResult v, h;
};
Both both(const std::string& text, const std::string& in) {
  Program p = program(text, Lang::FunMem);
  Inputs i = inputs(p, in);
  for (auto& b : p.def.params)
    if (b.type && b.type->kind == Type::Kind::Mem) i[b.name.s].is_mem = true;
  return {run_program(unmem(p), Semantics::Value, i), run_program(p, Semantics::Heap, i)};
}

} // namespace

TEST_CASE("E-SCALAR: exact integers, truncating division, IEEE f32", "[interp]") {
  auto r = value("def f (a : i64) (b : i64) : (i64, i64, i32, f32, bool) =\n"
                 "  let q = a / b\n  let m = a % b\n  let c = i32(a) * 3i32\n"
                 "  let x = f32(a) / 3f32\n  let t = q < m || b == 0\n  in (q, m, c, x, t)",
                 "a=-7 b=2");
  REQUIRE_FALSE(r.error);
  CHECK(r.results[0].scalar.i == -3);
  CHECK(r.results[1].scalar.i == -1);
  CHECK(r.results[2].scalar.i == -21);
  CHECK(r.results[3].scalar.f == static_cast<double>(-7.0f / 3.0f));
  CHECK(r.results[4].scalar.i == 1);
  auto o = value("def f (a : i32) : (i32) =\n  let b = a * 2i32\n  in (b)", "a=2000000000i32");
  REQUIRE(o.error);
  CHECK(o.error->kind == "overflow");
  CHECK(o.error->pos.line == 2);
  auto m = value("def f (a : i64) : (i64) =\n  let b = a / -1\n  in (b)", "a=-9223372036854775808");
  REQUIRE(m.error);
  CHECK(m.error->kind == "overflow");
}

TEST_CASE("E-INDEX, E-SLICE, strided and LMAD slices, E-TRANSPOSE", "[interp]") {
  auto r = value("def f (n : i64) (xs : [n][n]i64) : ([n][n]i64, [2]i64, [2]i64, i64, [3]i64) =\n"
                 "  let (t : [n][n]i64) = transpose xs\n"
                 "  let (s : [2]i64) = xs[1, 0 : 2]\n"
                 "  let (z : [2]i64) = xs[0, 0 : 2 : 2]\n"
                 "  let x = t[0, 2]\n"
                 "  let (row : [n]i64) = xs[2]\n"
                 "  let (d : [3]i64) = row[0 + {(3 : 1)}]\n"
                 "  in (t, s, z, x, d)",
                 "n=3 xs=iota");
  REQUIRE_FALSE(r.error);
  CHECK(ints(r.results[0]) == std::vector<int64_t>{0, 3, 6, 1, 4, 7, 2, 5, 8});
  CHECK(ints(r.results[1]) == std::vector<int64_t>{3, 4});
  CHECK(ints(r.results[2]) == std::vector<int64_t>{0, 2});
  CHECK(r.results[3].scalar.i == 6);
  CHECK(ints(r.results[4]) == std::vector<int64_t>{6, 7, 8});
  auto b = value("def f (n : i64) (xs : [n]i64) : ([2]i64) =\n"
                 "  let (s : [2]i64) = xs[n - 1 : 2]\n  in (s)",
                 "n=3");
  REQUIRE(b.error);
  CHECK(b.error->kind == "bounds");
}

TEST_CASE("E-KERNEL, loop, E-IF and in-place updates", "[interp]") {
  auto r = value("def f (n : i64) (xs : [n]i64) : ([n]i64, [0]i64, i64, [n]i64) =\n"
                 "  let (sq : [n]i64) = kernel i < n do\n"
                 "    let x = xs[i]\n    let y = x * x\n    in (y)\n"
                 "  let z = 0\n"
                 "  let (e : [z]i64) = kernel i < z do\n    in (i)\n"
                 "  let (s : i64) = loop (acc : i64) = (z) for i < n do\n"
                 "    let x = xs[i]\n    let a2 = acc + x\n    in (a2)\n"
                 "  let c = s > 5\n"
                 "  let (u : [n]i64) = if c then\n"
                 "      let (w : [n]i64) = copy xs\n      let (w2 : [n]i64) = w with [0] = s\n"
                 "      in (w2)\n"
                 "    else\n      let (w : [n]i64) = iota n\n      in (w)\n"
                 "  in (sq, e, s, u)",
                 "n=4 xs=[1, 2, 3, 4]");
  REQUIRE_FALSE(r.error);
  CHECK(ints(r.results[0]) == std::vector<int64_t>{1, 4, 9, 16});
  CHECK(r.results[1].shape == std::vector<int64_t>{0});
  CHECK(r.results[2].scalar.i == 10);
  CHECK(ints(r.results[3]) == std::vector<int64_t>{10, 2, 3, 4});
}

TEST_CASE("concat, iota, replicate, copy, scratch and slice updates", "[interp]") {
  auto r = value("def f (n : i64) : ([n + n]i64, [n][2]i64, [n]i64, [n]i64) =\n"
                 "  let (a : [n]i64) = iota n\n"
                 "  let (b : [n]i64) = replicate n 7\n"
                 "  let (c : [n + n]i64) = concat a b\n"
                 "  let (p : [2]i64) = replicate 2 (-1)\n"
                 "  let (r : [n][2]i64) = replicate n p\n"
                 "  let (s : [n]i64) = scratch\n"
                 "  let (q : [2]i64) = b[0 : 2]\n"
                 "  let (a2 : [n]i64) = a with [1 : 2] = q\n"
                 "  in (c, r, s, a2)",
                 "n=3");
  REQUIRE_FALSE(r.error);
  CHECK(ints(r.results[0]) == std::vector<int64_t>{0, 1, 2, 7, 7, 7});
  CHECK(ints(r.results[1]) == std::vector<int64_t>{-1, -1, -1, -1, -1, -1});
  CHECK(ints(r.results[2]) == std::vector<int64_t>{0, 0, 0});
  CHECK(ints(r.results[3]) == std::vector<int64_t>{0, 7, 7});
}

TEST_CASE("E-MEM-ALLOC, views share memory, kernel results are copied (memcpy)", "[interp]") {
  const char* prog =
      "def f (n : i64) (xm : mem) (xs : [n][n]@xm -> R(n, n)) : (mem, [n][n], mem, [n]) =\n"
      "  let (t : [n][n]@xm -> C(n, n)) = transpose xs\n"
      "  let (m : mem) = alloc n * n\n"
      "  let (y : [n][n]@m -> R(n, n)) = kernel i < n do\n"
      "    let (col : [n]@xm -> i + {(n : n)}) = t[i]\n"
      "    in (col)\n"
      "  let (dm : mem) = alloc n\n"
      "  let (d : [n]@dm -> R(n)) = kernel i < n do\n"
      "    let x = xs[i, i]\n    in (x)\n"
      "  in (m, y, dm, d)";
  Both b = both(prog, "n=3 xs=iota");
  REQUIRE_FALSE(b.v.error);
  REQUIRE_FALSE(b.h.error);
  CHECK(b.h.races.empty());
  CHECK_FALSE(compare_results(b.v.results, b.h.results));
  CHECK(ints(b.h.results[1]) == std::vector<int64_t>{0, 3, 6, 1, 4, 7, 2, 5, 8});
  CHECK(ints(b.h.results[3]) == std::vector<int64_t>{0, 4, 8});
  CHECK(b.h.results[0].is_mem);
  CHECK(b.h.stats.copies == 3); // one memcpy per iteration of the first kernel
}

TEST_CASE("a copy onto itself is elided and updates keep the source memory", "[interp]") {
  // Listing 6.2 after short-circuiting: x is built in place on the anti-diagonal.
  const char* prog = "def antidiag (ym : mem) (ys0 : [16]@ym -> R(16)) : (mem, [16]) =\n"
                     "  let (v : [4]@ym -> 3 + {(4 : 3)}) = ys0[3 + {(4 : 3)}]\n"
                     "  let (x : [4]@ym -> 3 + {(4 : 3)}) = kernel i < 4 do\n"
                     "    let t = v[i]\n    let u = t + 1\n    in (u)\n"
                     "  let (ys : [16]@ym -> R(16)) = ys0 with [3 + {(4 : 3)}] = x\n"
                     "  in (ym, ys)";
  Both b = both(prog, "ys0=iota");
  REQUIRE_FALSE(b.h.error);
  CHECK(b.h.stats.elided == 1);
  CHECK(b.h.races.empty());
  CHECK_FALSE(compare_results(b.v.results, b.h.results));
  CHECK(b.h.results[1].elems[3].i == 4);
}

TEST_CASE("racefree (fig. 4.9): write-write and read-write across iterations", "[interp]") {
  Both ww = both("def f (n : i64) : (mem, [n]) =\n"
                 "  let (m : mem) = alloc n\n"
                 "  let (y : [n]@m -> 0 + {(n : 0)}) = kernel i < n do\n    in (i)\n"
                 "  let (om : mem) = alloc n\n  let (o : [n]@om -> R(n)) = copy y\n"
                 "  in (om, o)",
                 "n=3");
  REQUIRE(ww.h.races.size() == 1);
  CHECK(ww.h.races[0].other_writes);
  CHECK(ww.h.races[0].block == "m");
  CHECK(ww.h.races[0].kernel.line == 3);
  CHECK(ww.h.races[0].to_string().find("also writes") != std::string::npos);
  // Iterations that only read the same cell do not race.
  Both rr = both("def f (n : i64) (xm : mem) (xs : [n]@xm -> R(n)) : (mem, [n]) =\n"
                 "  let (m : mem) = alloc n\n"
                 "  let (y : [n]@m -> R(n)) = kernel i < n do\n    let x = xs[0]\n    in (x)\n"
                 "  in (m, y)",
                 "n=3");
  CHECK(rr.h.races.empty());
  // Nested kernels: the inner iterations of one outer iteration are checked among
  // themselves, and their accesses count for the outer iteration.
  Both nested = both("def f (n : i64) (xm : mem) (xs : [n][n]@xm -> R(n, n)) : (mem, [n][n]) =\n"
                     "  let (y : [n][n]@xm -> R(n, n)) = kernel i < n do\n"
                     "    let (rm : mem) = alloc n\n"
                     "    let (row : [n]@rm -> R(n)) = kernel j < n do\n"
                     "      let a = xs[j, i]\n      in (a)\n"
                     "    in (row)\n"
                     "  in (xm, y)",
                     "n=3");
  REQUIRE(nested.h.races.size() == 1);
  CHECK(nested.h.races[0].kernel.line == 2);
}

TEST_CASE("validity compares results element by element", "[interp]") {
  Data a, b;
  a.is_array = b.is_array = true;
  a.shape = b.shape = {2, 2};
  for (int k = 0; k < 4; ++k) {
    a.elems.push_back(Scalar::of_int(ScalarType::I64, k));
    b.elems.push_back(Scalar::of_int(ScalarType::I64, k == 3 ? 9 : k));
  }
  auto d = compare_results({a}, {b});
  REQUIRE(d);
  CHECK(*d == "result 1[1, 1]: value semantics 3, heap semantics 9");
  CHECK_FALSE(compare_results({a}, {a}));
}

TEST_CASE("inputs: literals, sizes inferred from arrays, seeded random values", "[interp]") {
  Program p =
      program("def f (n : i64) (xs : [n]i64) (ys : [n][2]f32) : (i64) =\n  in (n)", Lang::Fun);
  Inputs in = inputs(p, "xs=[4, 5, 6]", 7);
  CHECK(in["n"].scalar.i == 3);
  CHECK(in["ys"].shape == std::vector<int64_t>{3, 2});
  CHECK(in["ys"].elems[0].t == ScalarType::F32);
  Inputs again = inputs(p, "xs=[4, 5, 6]", 7);
  CHECK(in["ys"].elems == again["ys"].elems);
  CHECK_THROWS_AS(inputs(p, "n=2 xs=[4, 5, 6]"), RunError);
  CHECK_THROWS_AS(inputs(p, "m=2"), RunError);
  CHECK_THROWS_AS(inputs(p, "xs=[[1], [2]]"), RunError);
}

TEST_CASE("a slice whose last element lies beyond int64 is a bounds error at its entry",
          "[interp][overflow]") {
  // (count - 1) * stride wraps around 2^64 in int64 onto an element inside xs (0, 3, 0,
  // 0): each is the bounds error of the slice, at `a`, under both semantics.
  const std::string text = "def f (n : i64) (xm : mem) (xs : [n]i64 @xm -> R(n)) (a : i64) (c : "
                           "i64) (s : i64) : (i64) =\n"
                           "  let (ys : [c]i64 @xm -> a + {(c : s)}) = xs[a : c : s]\n"
                           "  let (v : i64) = ys[0]\n"
                           "  in (v)";
  for (const char* in : {"a=2 c=3 s=9223372036854775807", "a=1 c=3 s=-9223372036854775807",
                         "a=0 c=5 s=4611686018427387904", "a=0 c=4611686018427387905 s=4",
                         "a=3 c=2 s=9223372036854775807"}) {
    Both b = both(text, std::string("n=4 xs=iota ") + in);
    for (const RunResult* r : {&b.v, &b.h}) {
      INFO(in << (r == &b.v ? " (value)" : " (heap)"));
      REQUIRE(r->error);
      CHECK(r->error->kind == "bounds");
      CHECK(r->error->pos.line == 2);
      CHECK(r->error->pos.col == 47);
      CHECK(std::string(r->error->what()).find("out of bounds for dimension 0 of 'xs' (size 4)") !=
            std::string::npos);
    }
  }
  Both ok = both(text, "n=4 xs=iota a=1 c=2 s=2");
  REQUIRE_FALSE(ok.v.error);
  REQUIRE_FALSE(ok.h.error);
  CHECK(ok.h.results[0].scalar.i == 1);
  // An LMAD slice: its last element 4 * 2^62, its first 1 - 2 * (2^63 - 1).
  const std::string lmad = "def f (n : i64) (xm : mem) (xs : [n]i64 @xm -> R(n)) (a : i64) (c : "
                           "i64) (s : i64) : (i64) =\n"
                           "  let (ys : [c]i64 @xm -> a + {(c : s)}) = xs[a + {(c : s)}]\n"
                           "  let (v : i64) = ys[0]\n"
                           "  in (v)";
  for (const auto& [in, reach] :
       {std::pair<std::string, std::string>{"a=0 c=5 s=4611686018427387904",
                                            "elements 0..18446744073709551616 of 'xs'"},
        {"a=1 c=3 s=-9223372036854775807", "elements -18446744073709551613..1 of 'xs'"}}) {
    Both b = both(lmad, "n=4 xs=iota " + in);
    for (const RunResult* r : {&b.v, &b.h}) {
      INFO(in << (r == &b.v ? " (value)" : " (heap)"));
      REQUIRE(r->error);
      CHECK(r->error->kind == "bounds");
      CHECK(r->error->pos.line == 2);
      CHECK(r->error->pos.col == 47);
      CHECK(std::string(r->error->what()).find(reach) != std::string::npos);
    }
  }
}

TEST_CASE("a view whose offset lies beyond int64 is a bounds error, never wrapped",
          "[interp][overflow]") {
  // Row i of a layout with a row stride of 2^62: row 3 starts at 3 * 2^62.
  const std::string text =
      "def f (n : i64) (i : i64) : (i64) =\n"
      "  let (m : mem) = alloc 4\n"
      "  let (xs : [n][2]i64 @m -> 0 + {(n : 4611686018427387904), (2 : 1)}) = scratch\n"
      "  let (row : [2]i64 @m -> i * 4611686018427387904 + {(2 : 1)}) = xs[i]\n"
      "  let (v : i64) = row[0]\n"
      "  in (v)";
  Program p = program(text, Lang::FunMem);
  RunResult far = run_program(p, Semantics::Heap, inputs(p, "n=4 i=3"));
  REQUIRE(far.error);
  CHECK(far.error->kind == "bounds");
  CHECK(far.error->pos.line == 4);
  CHECK(far.error->pos.col == 69);
  CHECK(std::string(far.error->what()) ==
        "the view of 'xs' starts at offset 13835058055282163712, outside every block");
  RunResult near = run_program(p, Semantics::Heap, inputs(p, "n=4 i=0"));
  REQUIRE_FALSE(near.error);
  CHECK(near.results[0].scalar.i == 0);
  // Places without elements keep no offset or stride beyond int64: an empty slice of rows
  // of 2^62 elements at row 3, and an empty array whose rows' stride is 2^64.
  auto empty = value("def f (n : i64) (m : i64) (a : i64) : ([0][m]i64) =\n"
                     "  let (xs : [n][m]i64) = scratch\n"
                     "  let (e : [0][m]i64) = xs[a : 0]\n"
                     "  in (e)",
                     "n=0 m=4611686018427387904 a=3");
  REQUIRE_FALSE(empty.error);
  CHECK(empty.results[0].shape == std::vector<int64_t>{0, 4611686018427387904});
  auto wide = value("def f (n : i64) (b : i64) : (i64) =\n"
                    "  let (a : [n][b][4]i64) = scratch\n"
                    "  let (s : i64) = a[0, 0, 0]\n"
                    "  in (s)",
                    "n=0 b=4611686018427387904");
  REQUIRE(wide.error);
  CHECK(wide.error->kind == "bounds");
  CHECK(wide.error->pos.line == 3);
}

TEST_CASE("resource limits end a run with a clear error", "[interp]") {
  const char* loop = "def f (n : i64) : (i64) =\n  let z = 0\n"
                     "  let (s : i64) = loop (a : i64) = (z) for i < n do\n"
                     "    let b = a + 1\n    in (b)\n  in (s)";
  Limits lim;
  lim.max_steps = 1000;
  auto r = value(loop, "n=100000", lim);
  REQUIRE(r.error);
  CHECK(r.error->kind == "resource");
  CHECK(std::string(r.error->what()).find("--max-steps") != std::string::npos);
  Limits mem;
  mem.max_memory_bytes = 1 << 20;
  auto m =
      value("def f (n : i64) : ([n]i64) =\n  let (r : [n]i64) = iota n\n  in (r)", "n=100000", mem);
  REQUIRE(m.error);
  CHECK(m.error->kind == "resource");
}

namespace {

using namespace funmem::imp;

funmem::imp::Stmt st(decltype(funmem::imp::Stmt::node) n) {
  return funmem::imp::Stmt{std::move(n), Pos{1, 1}};
}
Name nm(const char* s) {
  return Name{s, {}};
}

/// Thesis listing 4.3: if zcond then allocate xmem, fill it with a kernel, zmem <- xmem.
funmem::imp::Program listing43() {
  funmem::imp::Program p;
  p.name = nm("listing43");
  p.params = {Param{nm("xsize"), false, ScalarType::I64},
              Param{nm("zcond"), false, ScalarType::Bool}};
  Block then_b = {
      st(Alloc{nm("xmem"), mk_var("xsize")}),
      st(Loop{true, nm("i"), mk_var("xsize"), {st(Write{nm("xmem"), mk_var("i"), mk_var("i")})}}),
      st(Assign{nm("zmem"), mk_var("xmem")})};
  p.body = {st(Decl{nm("zmem"), true, ScalarType::I64}),
            st(Decl{nm("xmem"), true, ScalarType::I64}),
            st(If{mk_var("zcond"), then_b, {st(Skip{})}})};
  p.results = {nm("zmem")};
  return p;
}

Inputs scalars(std::map<std::string, Scalar> m) {
  Inputs in;
  for (auto& [k, v] : m) {
    Data d;
    d.scalar = v;
    in[k] = d;
  }
  return in;
}

} // namespace

TEST_CASE("IMP (fig. 4.13): allocation, kernel writes, if, label assignment", "[interp][imp]") {
  auto p = listing43();
  RunResult r = run_imp(p, scalars({{"xsize", Scalar::of_int(ScalarType::I64, 4)},
                                    {"zcond", Scalar::of_int(ScalarType::Bool, 1)}}));
  REQUIRE_FALSE(r.error);
  CHECK(r.races.empty());
  CHECK(ints(r.results[0]) == std::vector<int64_t>{0, 1, 2, 3});
  // zcond false: zmem is never allocated, and reading it is an error.
  RunResult f = run_imp(p, scalars({{"xsize", Scalar::of_int(ScalarType::I64, 4)},
                                    {"zcond", Scalar::of_int(ScalarType::Bool, 0)}}));
  REQUIRE(f.error);
  CHECK(f.error->kind == "bounds");
}

TEST_CASE("IMP kernels are checked for races but for loops are not", "[interp][imp]") {
  // kernel i < n: x <- m[i + 1]; m[i] <- x   (a shift in place)
  auto shift = [](bool parallel) {
    funmem::imp::Program p;
    p.name = nm("shift");
    p.params = {Param{nm("n"), false, ScalarType::I64}, Param{nm("m"), true, ScalarType::I64}};
    p.body = {st(Decl{nm("x"), false, ScalarType::I64}),
              st(Loop{parallel,
                      nm("i"),
                      mk_bin(BinOp::Sub, mk_var("n"), mk_int(1)),
                      {st(Read{nm("x"), nm("m"), mk_bin(BinOp::Add, mk_var("i"), mk_int(1))}),
                       st(Write{nm("m"), mk_var("i"), mk_var("x")})}})};
    p.results = {nm("m")};
    return p;
  };
  Inputs in = scalars({{"n", Scalar::of_int(ScalarType::I64, 4)}});
  Data m;
  m.is_array = true;
  m.shape = {4};
  for (int k = 0; k < 4; ++k)
    m.elems.push_back(Scalar::of_int(ScalarType::I64, 10 + k));
  in["m"] = m;
  RunResult par = run_imp(shift(true), in);
  REQUIRE_FALSE(par.error);
  REQUIRE(par.races.size() == 1);
  CHECK(par.races[0].block == "m");
  CHECK_FALSE(par.races[0].other_writes);
  RunResult seq = run_imp(shift(false), in);
  REQUIRE_FALSE(seq.error);
  CHECK(seq.races.empty());
  CHECK(ints(seq.results[0]) == std::vector<int64_t>{11, 12, 13, 13});
}

TEST_CASE("value semantics: an update is in place only when nothing else can see the array",
          "[interp][in-place]") {
  // The loop's array is mentioned last by its update and held by nothing else: every
  // update is in place, none copies.
  auto loop =
      value("def f (n : i64) (xs : [n]i64) : ([n]i64) =\n"
            "  let (r : [n]i64) = loop (a : [n]i64) = (xs) for i < n do\n"
            "    let x = a[i]\n    let x1 = x + 1\n    let (a2 : [n]i64) = a with [i] = x1\n"
            "    in (a2)\n"
            "  in (r)",
            "n=4 xs=[1, 2, 3, 4]");
  REQUIRE_FALSE(loop.error);
  CHECK(ints(loop.results[0]) == std::vector<int64_t>{2, 3, 4, 5});
  CHECK(loop.stats.in_place == 4);
  CHECK(loop.stats.copies == 0);
  // The old value is used after the update (a program the type checker refuses; the
  // interpreter does not rely on it): the update copies, and the old value is unchanged.
  auto reused = unchecked_value("def f (n : i64) (xs : [n]i64) : ([n]i64, [n]i64) =\n"
                                "  let (ys : [n]i64) = copy xs\n"
                                "  let (zs : [n]i64) = ys with [0] = 9\n"
                                "  let (ws : [n]i64) = copy ys\n"
                                "  in (zs, ws)",
                                "n=3 xs=[1, 2, 3]");
  REQUIRE_FALSE(reused.error);
  CHECK(ints(reused.results[0]) == std::vector<int64_t>{9, 2, 3});
  CHECK(ints(reused.results[1]) == std::vector<int64_t>{1, 2, 3});
  CHECK(reused.stats.in_place == 0);
  // A view of the array is still live (mentioned after the update; refused by the type
  // checker too): it keeps the block, so the update copies.
  auto view = unchecked_value("def f (n : i64) (xs : [n][n]i64) : ([n][n]i64, [n]i64) =\n"
                              "  let (ys : [n][n]i64) = copy xs\n"
                              "  let (row : [n]i64) = ys[0]\n"
                              "  let (zs : [n][n]i64) = ys with [0, 0] = 9\n"
                              "  let (r2 : [n]i64) = copy row\n"
                              "  in (zs, r2)",
                              "n=2 xs=[[1, 2], [3, 4]]");
  REQUIRE_FALSE(view.error);
  CHECK(ints(view.results[0]) == std::vector<int64_t>{9, 2, 3, 4});
  CHECK(ints(view.results[1]) == std::vector<int64_t>{1, 2});
  CHECK(view.stats.in_place == 0);
  // An array passed to the loop and still used after it (refused by the type checker):
  // the first update copies, the loop's own value is then updated in place.
  auto init = unchecked_value("def f (n : i64) (xs : [n]i64) : ([n]i64, [n]i64) =\n"
                              "  let (r : [n]i64) = loop (a : [n]i64) = (xs) for i < n do\n"
                              "    let (a2 : [n]i64) = a with [i] = 0\n"
                              "    in (a2)\n"
                              "  let (c : [n]i64) = copy xs\n"
                              "  in (r, c)",
                              "n=3 xs=[1, 2, 3]");
  REQUIRE_FALSE(init.error);
  CHECK(ints(init.results[0]) == std::vector<int64_t>{0, 0, 0});
  CHECK(ints(init.results[1]) == std::vector<int64_t>{1, 2, 3});
  CHECK(init.stats.in_place == 2);
  CHECK(init.stats.copies == 2); // the first update and the final copy
  // Mentioned last in one branch of an `if`: that branch updates in place; in the
  // other the old value is returned beside the new one (refused by the type checker),
  // so its update copies.
  auto branch = unchecked_value("def f (n : i64) (c : bool) (xs : [n]i64) : ([n]i64, [n]i64) =\n"
                                "  let (ys : [n]i64) = copy xs\n"
                                "  let (a : [n]i64) (b : [n]i64) = if c then\n"
                                "      let (y2 : [n]i64) = ys with [0] = 7\n"
                                "      let (y3 : [n]i64) = copy y2\n"
                                "      in (y2, y3)\n"
                                "    else\n"
                                "      let (y2 : [n]i64) = ys with [0] = 8\n"
                                "      in (y2, ys)\n"
                                "  in (a, b)",
                                "n=2 c=true xs=[1, 2]");
  REQUIRE_FALSE(branch.error);
  CHECK(ints(branch.results[0]) == std::vector<int64_t>{7, 2});
  CHECK(branch.stats.in_place == 1);
  auto other = unchecked_value("def f (n : i64) (c : bool) (xs : [n]i64) : ([n]i64, [n]i64) =\n"
                               "  let (ys : [n]i64) = copy xs\n"
                               "  let (a : [n]i64) (b : [n]i64) = if c then\n"
                               "      let (y2 : [n]i64) = ys with [0] = 7\n"
                               "      in (y2, y2)\n"
                               "    else\n"
                               "      let (y2 : [n]i64) = ys with [0] = 8\n"
                               "      in (y2, ys)\n"
                               "  in (a, b)",
                               "n=2 c=false xs=[1, 2]");
  REQUIRE_FALSE(other.error);
  CHECK(ints(other.results[0]) == std::vector<int64_t>{8, 2});
  CHECK(ints(other.results[1]) == std::vector<int64_t>{1, 2});
  CHECK(other.stats.in_place == 0);
}

TEST_CASE("heap semantics: recycled storage and race records start empty", "[interp][pool]") {
  // Every iteration of the loop allocates a block of 2048 elements (pooled) and every
  // iteration of the kernel inside one of 100 elements whose race records are recycled
  // pages: each reads as never written and no race is reported across blocks.
  Both r = both("def f (n : i64) : (mem, [n]i64) =\n"
                "  let (om : mem) = alloc n\n"
                "  let (o : [n]i64 @om -> R(n)) = kernel i < n do\n"
                "    let (m : mem) = alloc 100\n"
                "    let (s : [100]i64 @m -> R(100)) = scratch\n"
                "    let (s2 : [100]i64 @m -> R(100)) = s with [i] = i\n"
                "    let v = s2[i]\n"
                "    let w = s2[99]\n"
                "    let x = v + w\n"
                "    in (x)\n"
                "  let zero = 0\n"
                "  let (acc : i64) = loop (t : i64) = (zero) for k < n do\n"
                "    let (bm : mem) = alloc 2048\n"
                "    let (b : [2048]i64 @bm -> R(2048)) = scratch\n"
                "    let z = b[k]\n"
                "    let k1 = k + 1\n"
                "    let (b2 : [2048]i64 @bm -> R(2048)) = b with [k] = k1\n"
                "    let y = b2[k]\n"
                "    let t2 = t + y + z\n"
                "    in (t2)\n"
                "  let (o2 : [n]i64 @om -> R(n)) = o with [0] = acc\n"
                "  in (om, o2)",
                "n=4");
  REQUIRE_FALSE(r.h.error);
  CHECK(r.h.races.empty());
  // o[i] = i + 0 (s2[99] was never written: zero), then o[0] = 1 + 2 + 3 + 4.
  CHECK(ints(r.h.results[1]) == std::vector<int64_t>{10, 1, 2, 3});
  // The peak counts live blocks only (16 bytes per element), pooled storage not.
  CHECK(r.h.stats.peak_bytes == (4 + 2048) * 16);
}

TEST_CASE("a parameter's addresses are integers inside its block, never wrapped",
          "[interp][overflow]") {
  // A parameter block holds its arrays as integers: the offset a*b is evaluated with
  // trapping arithmetic, an address below 0 is a bounds error, one at 2^63 - 1 or more a
  // resource error; a stride of a one-element dimension is never evaluated.
  const std::string text =
      "def f (a : i64) (b : i64) (s : i64) (n : i64) (m : mem) (ys : [2]i64 @m -> R(2))\n"
      "      (A : [n]i64 @m -> (a*b) + {(n : s)}) : (i64) =\n"
      "  let (v : i64) = ys[1]\n"
      "  in (v)";
  funmem::Program p = program(text, Lang::FunMem);
  auto run = [&](const std::string& in, std::string A) {
    return run_program(p, Semantics::Heap, inputs(p, in + " ys=[5, 6] A=" + A));
  };
  RunResult wrapped = run("a=4294967296 b=4294967296 s=1 n=1", "[9]");
  REQUIRE(wrapped.error);
  CHECK(wrapped.error->kind == "overflow");
  CHECK(wrapped.error->pos.line == 2);
  RunResult below = run("a=1 b=1 s=-2 n=2", "[9, 9]");
  REQUIRE(below.error);
  CHECK(below.error->kind == "bounds");
  CHECK(std::string(below.error->what()) ==
        "the layout of parameter 'A' reaches address -1, below its block 'm'");
  RunResult beyond = run("a=1 b=1 s=9223372036854775807 n=2", "[9, 9]");
  REQUIRE(beyond.error);
  CHECK(beyond.error->kind == "resource");
  CHECK(std::string(beyond.error->what()) ==
        "the layout of parameter 'A' reaches address 9223372036854775808, beyond any block");
  // One element: the stride is not evaluated, its product never traps.
  RunResult one = run("a=3 b=1 s=9223372036854775807 n=1", "[9]");
  REQUIRE_FALSE(one.error);
  CHECK(one.results[0].scalar.i == 6);
  RunResult none = run("a=4294967296 b=4294967296 s=1 n=0", "[]");
  REQUIRE_FALSE(none.error);
}
