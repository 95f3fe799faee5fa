-- replicate 2^62 rows of no element: the interpreters write nothing (no loop over the rows),
-- IMP's rows loop runs only when the row is not empty.
def f (m : i64) (p : i64) (xs : [m]i64) : ([p][m]i64) =
  let (u : [p][m]i64) = replicate p xs
  in (u)
-- input: m=0 p=4611686018427387904
-- expect: valid
