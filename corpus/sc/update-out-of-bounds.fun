-- A row update whose index is one past the end: sc builds x inside ys with the update's
-- bounds check at x's creation, and the program still ends in the update's bounds
-- error, at the update's index, before anything is written.
def oob (m : i64) (n : i64) (i : i64) (ys0 : [m][n]i64) : ([m][n]i64) =
  assume m > 0
  let (x : [n]i64) = iota n
  let (ys : [m][n]i64) = ys0 with [i] = x
  in (ys)
-- input: m=3 n=4 i=3
-- expect: error bounds
-- expect: short-circuit 1
