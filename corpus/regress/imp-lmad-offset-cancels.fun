-- A view's LMAD offset k*k - k*k + 1 wraps in the source (it is 1); to-imp's check that
-- the view lies inside its array takes the LMAD in normal form and does not overflow.
def f (n : i64) (k : i64) (xs : [n]i64) : ([2]i64) =
  let (v : [2]i64) = xs[k*k - k*k + 1 + {(2 : 1)}]
  let (w : [2]i64) = copy v
  in (w)
-- input: n=5 k=4294967296 xs=iota
-- expect: valid
-- expect: short-circuit 0
