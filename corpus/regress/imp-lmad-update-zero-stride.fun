-- An LMAD update whose stride is 0 on one data set: both elements go to cell 3 and the
-- last one written wins (the value semantics). to-imp copies it in parallel only where
-- the run shows distinct cells (`lmad_injective`), else in sequence; a parallel copy
-- raced here.
def main (n : i64) (xs : [n]i64) : ([8]i64) =
  let (r0 : i64) = xs[0]
  let (e : i64) = min(max(r0, -1), 1)
  let (f : [8]i64) = iota 8
  let (x : [2]i64) = iota 2
  let (g : [8]i64) = f with [3 + {(2 : e)}] = x
  in (g)
-- input: n=1 xs=[0]
-- input: n=1 xs=[1]
-- input: n=1 xs=[-5]
-- expect: valid
-- refuses: bounds
