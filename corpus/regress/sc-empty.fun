-- An outside review's probe (issue 42, class 10): an empty slice at a start near 2^62.
-- The source accepts it (nothing is written); built in place, x's layout a*n + ... wraps
-- and, being empty, is never used.
def f (m : i64) (n : i64) (a : i64) (k : i64) (ys0 : [m][n]i64) : ([m][n]i64) =
  assume k >= 0 && k <= 100 && n >= 1 && n <= 100
  let (x : [k][n]i64) = kernel t < k do
    let (r : [n]i64) = iota n
    in (r)
  let (ys : [m][n]i64) = ys0 with [a : k] = x
  in (ys)
-- input: m=2 n=2 a=4611686018427387904 k=0
-- input: m=2 n=2 a=100 k=0
-- input: m=2 n=2 a=-100 k=0
-- input: m=3 n=2 a=1 k=2
-- expect: valid
-- expect: short-circuit 2
