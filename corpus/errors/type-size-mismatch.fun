-- The declared size differs from the computed one by normal form.
def f (n : i64) : ([n]i64) =
  let (xs : [n]i64) = iota (n + 1)
  in (xs)
-- expect: error type
