-- A copy of a [2^62][0] array: the source copies nothing; IMP's copy nest runs only when
-- every inner dimension is positive (a loop of 2^62 empty rows is a resource error).
def f (m : i64) (p : i64) (xs : [m][p]i64) : ([p][m]i64) =
  let (t : [p][m]i64) = transpose xs
  let (u : [p][m]i64) = copy t
  in (u)
-- input: m=0 p=4611686018427387904
-- expect: valid
