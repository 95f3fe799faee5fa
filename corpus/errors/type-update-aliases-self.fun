-- The new value of an update may not alias the updated array.
def f (n : i64) (xs : [n][n]i64) : ([n][n]i64) =
  let (row : [n]i64) = xs[1]
  let (ys : [n][n]i64) = xs with [0] = row
  in (ys)
-- expect: error type
