-- Three indices for a two-dimensional array.
def f (n : i64) (xs : [n][n]i64) : (i64) =
  let (v : i64) = xs[0, 0, 0]
  in (v)
-- expect: error type
