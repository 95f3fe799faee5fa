-- concat of two [2^62 - 1][0] arrays: nothing to copy in any stage.
-- refuses: creation point
-- refuses: creation point
def f (m : i64) (p : i64) (xs : [p][m]i64) (ys : [p][m]i64) : ([p+p][m]i64) =
  let (u : [p+p][m]i64) = concat xs ys
  in (u)
-- input: m=0 p=4611686018427387903
-- expect: valid
