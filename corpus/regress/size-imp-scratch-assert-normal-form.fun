-- A scratch of (a - b) * c elements whose normal form overflows in a term: IMP's
-- assert that the size is not negative evaluates it as a size.
def f (a : i64) (b : i64) (c : i64) : ([(a - b) * c]i64) =
  let (xs : [(a - b) * c]i64) = scratch
  in (xs)
-- input: a=4611686018427387904 b=4611686018427387903 c=5
-- expect: valid
