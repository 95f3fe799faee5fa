-- A kernel body may not consume an array defined outside it.
def f (n : i64) (xs : [n]i64) : ([n][n]i64) =
  let (zs : [n][n]i64) = kernel i < n do
    let (ys : [n]i64) = xs with [i] = 0
    in (ys)
  in (zs)
-- expect: error type
