-- An outside review's probe (issue 42, class 10): a one-row strided slice with a stride
-- near 2^62. Built in place, x's layout a*n + {(1 : n*s), (n : 1)} holds n*s, which does
-- not fit i64; layout arithmetic wraps modulo 2^64 (docs/interpreters.md), so the row
-- written is exact and every stage ends as the source does.
def f (m : i64) (n : i64) (a : i64) (s : i64) (ys0 : [m][n]i64) : ([m][n]i64) =
  assume s >= 1 && n >= 1 && n <= 100 && a >= 0 && a < m
  let (x : [1][n]i64) = kernel t < 1 do
    let (r : [n]i64) = iota n
    in (r)
  let (ys : [m][n]i64) = ys0 with [a : 1 : s] = x
  in (ys)
-- input: m=2 n=2 a=1 s=4611686018427387904
-- input: m=3 n=2 a=1 s=1
-- expect: valid
-- expect: short-circuit 2
