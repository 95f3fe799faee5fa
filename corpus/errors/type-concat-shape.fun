-- concat needs equal inner sizes.
def f (n : i64) (a : [n][2]i64) (b : [n][3]i64) : ([2*n][2]i64) =
  let (c : [2*n][2]i64) = concat a b
  in (c)
-- expect: error type
