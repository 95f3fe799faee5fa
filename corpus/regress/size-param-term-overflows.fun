-- A parameter's size a*c - b*c: a*c leaves i64, the size (5) does not. Sizes are
-- evaluated over the integers, so the data set fits and the program reads xs[4].
def f (a : i64) (b : i64) (c : i64) (xs : [a * c - b * c]i64) : (i64) =
  let v = xs[4]
  in (v)
-- input: a=4611686018427387904 b=4611686018427387903 c=5 xs=[1, 2, 3, 4, 5]
-- expect: valid
