-- A type's size is a polynomial, evaluated exactly: k*k - k*k + n is n, though k*k leaves
-- i64. fun-to-funmem's allocation before the copy evaluates the size alike, so it
-- does not overflow where the source has results.
def f (n : i64) (k : i64) (xs : [n]i64) : ([k*k - k*k + n]i64) =
  let (w : [k*k - k*k + n]i64) = copy xs
  in (w)
-- input: n=5 k=4294967296 xs=iota
-- input: n=3 k=2 xs=iota
-- expect: valid
-- expect: short-circuit 0
