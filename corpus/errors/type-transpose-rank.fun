-- transpose needs rank 2 or more.
def f (n : i64) (xs : [n]i64) : ([n]i64) =
  let (ys : [n]i64) = transpose xs
  in (ys)
-- expect: error type
