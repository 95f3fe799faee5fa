-- An outside review's probe (issue 42, class 10): a row index and an empty inner slice at
-- start 2^63-1; the layout's i*n + a wraps and is never used.
def f (m : i64) (n : i64) (i : i64) (a : i64) (k : i64) (ys0 : [m][n]i64) : ([m][n]i64) =
  assume k >= 0 && k <= 100
  let (x : [k]i64) = iota k
  let (ys : [m][n]i64) = ys0 with [i, a : k] = x
  in (ys)
-- input: m=2 n=3 i=1 a=9223372036854775807 k=0
-- input: m=2 n=3 i=1 a=1 k=2
-- expect: valid
-- expect: short-circuit 1
