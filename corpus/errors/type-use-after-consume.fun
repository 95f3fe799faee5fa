-- A view of xs is used after xs was consumed by an in-place update.
def f (n : i64) (xs : [n][n]i64) : (i64) =
  let (row : [n]i64) = xs[0]
  let (ys : [n][n]i64) = xs with [1, 1] = 5
  let (v : i64) = row[0]
  in (v)
-- expect: error type
