-- A parameter of size ((a-b)*c)/c: IMP's copy of it and its result count take the normal
-- form (a*c - b*c)/c, evaluated as a size over the integers, inside the division too.
def f (a : i64) (b : i64) (c : i64) (xs : [((a-b)*c)/c]i64) : ([((a-b)*c)/c]i64) =
  in (xs)
-- input: a=4611686018427387904 b=4611686018427387903 c=5
-- expect: valid
