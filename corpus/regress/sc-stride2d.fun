-- An outside review's probe (issue 42, classes 8 and 10): as sc-stride2s with a run-time
-- checked count: the moved check passes for one row, and the layout's n*s wraps exactly.
def f (m : i64) (n : i64) (a : i64) (k : i64) (s : i64) (ys0 : [m][n]i64) : ([m][n]i64) =
  assume s >= 1 && k >= 0 && k <= 100 && n >= 1 && n <= 100
  let (x : [k][n]i64) = kernel t < k do
    let (r : [n]i64) = iota n
    in (r)
  let (ys : [m][n]i64) = ys0 with [a : k : s] = x
  in (ys)
-- input: m=2 n=2 a=0 k=1 s=4611686018427387904
-- input: m=2 n=2 a=0 k=1 s=9223372036854775807
-- input: m=3 n=2 a=0 k=2 s=1
-- expect: valid
-- expect: short-circuit 2
