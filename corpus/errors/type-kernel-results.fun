-- A kernel body returns exactly one value.
def f (n : i64) : ([n]i64) =
  let (xs : [n]i64) = kernel i < n do
    let j = i + 1
    in (i, j)
  in (xs)
-- expect: error type
