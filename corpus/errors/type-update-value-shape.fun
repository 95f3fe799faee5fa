-- The new value of a row update must be a row.
def f (n : i64) (xs : [n][n]i64) : ([n][n]i64) =
  let (ys : [n][n]i64) = xs with [0] = 7
  in (ys)
-- expect: error type
