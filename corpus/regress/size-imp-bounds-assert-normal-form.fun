-- The bounds check of xs[i] compares i with the size of xs, (a - b) * c, in normal
-- form: evaluated as a size, not with trapping arithmetic.
def f (a : i64) (b : i64) (c : i64) (i : i64) : (i64) =
  let (xs : [(a - b) * c]i64) = kernel j < (a - b) * c do
    let t = j * 2
    in (t)
  let v = xs[i]
  in (v)
-- input: a=4611686018427387904 b=4611686018427387903 c=5 i=2
-- expect: valid
