// Type checker tests: well-typed programs pass; each kind of error is reported at its
// position; all errors of a program are reported, not just the first.
#include "ir/parser.h"
#include "ir/typecheck.h"

#include <catch2/catch.hpp>

using namespace funmem;

namespace {

std::vector<Diagnostic> check(const std::string& text, Lang lang) {
  ParseResult r = parse_program(text, lang);
  if (!r.program) FAIL("parse error: " << r.error->message);
  return typecheck(*r.program);
}

bool has(const std::vector<Diagnostic>& ds, const std::string& sub, int line = 0) {
  for (const auto& d : ds)
    if (d.message.find(sub) != std::string::npos && (line == 0 || d.pos.line == line)) return true;
  return false;
}

std::string all(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds)
    s += std::to_string(d.pos.line) + ":" + std::to_string(d.pos.col) + " " + d.message + "\n";
  return s;
}

} // namespace

TEST_CASE("well-typed FUN programs pass", "[ir][typecheck]") {
  auto ds = check(R"(def f (q : i64) (b : i64) (xs : [q*b+1][q*b+1]f32) : ([q*b+1]f32, i64) =
  let n = q*b + 1
  let (row : [n]f32) = xs[2]
  let (col : [n]f32) = xs[0 : n, 1]
  let (tr : [n][n]f32) = transpose xs
  let (ys : [n]f32) = kernel i < n do
    let (a : f32) = row[i]
    let (c : f32) = col[i]
    let s = a + c * 2.0f32
    in (s)
  let (zs : [n + n]f32) = concat ys row
  let (m : i64) (r : [m]f32) = if n > 3 then
    in (n, ys)
  else
    in (n, row)
  let (acc : [n]f32) = loop (a : [n]f32) = (ys) for k < 3 do
    let (v : f32) = a[k]
    let (a2 : [n]f32) = a with [k] = v
    in (a2)
  let cnt = i64(select(m > 2, 1i32, 2i32))
  in (acc, cnt)
)",
                  Lang::Fun);
  INFO(all(ds));
  CHECK(ds.empty());
}

TEST_CASE("well-typed FUNMEM views must match the computed layout", "[ir][typecheck]") {
  auto ok = check(R"(def f (n : i64) (xm : mem) (xs : [n][n]@xm -> R(n, n)) : (mem, [n][n]) =
  let (row : [n]@xm -> 2*n + {(n : 1)}) = xs[2]
  let (tr : [n][n]@xm -> 0 + {(n : 1), (n : n)}) = transpose xs
  let (ym : mem) = alloc n*n
  let (ys : [n][n]@ym -> R(n, n)) = kernel i < n do
    let (r : [n]@xm -> i*n + {(n : 1)}) = xs[i]
    in (r)
  in (ym, ys)
)",
                  Lang::FunMem);
  INFO(all(ok));
  CHECK(ok.empty());
  auto bad = check(R"(def f (n : i64) (xm : mem) (xs : [n][n]@xm -> R(n, n)) : (mem, [n][n]) =
  let (row : [n]@xm -> n + {(n : 1)}) = xs[2]
  in (xm, xs)
)",
                   Lang::FunMem);
  CHECK(has(bad, "a view reuses its source's memory", 2));
}

TEST_CASE("every error of a program is reported with its position", "[ir][typecheck]") {
  auto ds = check(R"(def f (n : i64) (xs : [n]) : ([n]) =
  let a = n + 1.0
  let (b : [n]) = iota (n + 1)
  let c = undefined_name
  let (ys : [n]) = xs with [0] = 7
  let d = xs[1]
  in (ys)
)",
                  Lang::Fun);
  INFO(all(ds));
  CHECK(has(ds, "different types i64 and f64", 2));
  CHECK(has(ds, "declared [n]i64", 3));
  CHECK(has(ds, "'undefined_name' is not defined", 4));
  CHECK(has(ds, "used after it (or an alias of it) was consumed", 6));
  CHECK(ds.size() == 4);
}

TEST_CASE("consumption kills aliases and is refused for free variables of kernels",
          "[ir][typecheck]") {
  auto ds = check(R"(def f (n : i64) (xs : [n][n]) : ([n][n]) =
  let (row : [n]) = xs[0]
  let (z : i64) = row[0]
  let (ys : [n][n]) = xs with [1, 2] = z
  let (w : i64) = row[1]
  let (ks : [n][n]) = kernel i < n do
    let (r2 : [n][n]) = ys with [i, 0] = w
    let (r : [n]) = r2[i]
    in (r)
  in (ks)
)",
                  Lang::Fun);
  INFO(all(ds));
  CHECK(has(ds, "'row' is used after", 5));
  CHECK(has(ds, "cannot be consumed here", 7));
}

TEST_CASE("FUN rejects FUNMEM constructs and FUNMEM needs annotations", "[ir][typecheck]") {
  auto fun = check("def f (n : i64) : (i64) =\n  let (m : mem) = alloc n\n  in (n)\n", Lang::Fun);
  CHECK(has(fun, "exists only in FUNMEM", 2));
  auto mem =
      check("def f (n : i64) : ([n]) =\n  let (xs : [n]) = iota n\n  in (xs)\n", Lang::FunMem);
  CHECK(has(mem, "need a memory annotation", 2));
  auto res = check(R"(def f (n : i64) : (mem, [n]) =
  let (m : mem) = alloc n
  let (xs : [n]@m -> C(n)) = iota n
  let (ys : [n]@m -> 0 + {(n : 2)}) = iota n
  in (m, ys)
)",
                   Lang::FunMem);
  INFO(all(res));
  CHECK(has(res, "must be row-major", 5));
}

TEST_CASE("existential sizes of if and loop results", "[ir][typecheck]") {
  auto ok = check(R"(def f (a : i64) (b : i64) (c : bool) : (i64) =
  let (k : i64) (zs : [k]) = if c then
    let (x : [a]) = iota a
    in (a, x)
  else
    let (y : [b]) = iota b
    in (b, y)
  let (len : i64) (r : [len]) = loop (l : i64) (v : [l]) = (k, zs) for i < 3 do
    let l2 = l + 1
    let (w : [l2]) = iota l2
    in (l2, w)
  in (len)
)",
                  Lang::Fun);
  INFO(all(ok));
  CHECK(ok.empty());
  auto bad = check(R"(def f (a : i64) (c : bool) : (i64) =
  let (k : i64) (zs : [k]) = if c then
    let (x : [a]) = iota a
    in (a, x)
  else
    let (y : [a + 1]) = iota (a + 1)
    in (a, y)
  in (k)
)",
                   Lang::Fun);
  CHECK(has(bad, "'y' has type [a + 1]i64 but 'zs' expects [a]i64", 7));
}
