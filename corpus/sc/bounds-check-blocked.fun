-- The place's check cannot move to x's creation: the kernel creating x divides by d,
-- and with d = 0 and i = 7 the run must end with the division error, as the source
-- does, not with the update's bounds error. So x keeps its own block.
def blocked (m : i64) (n : i64) (i : i64) (d : i64) (ys0 : [m][n]i64) : ([m][n]i64) =
  let (x : [n]i64) = kernel k < n do
    let v = k / d
    in (v)
  let (ys : [m][n]i64) = ys0 with [i] = x
  in (ys)
-- input: m=3 n=4 i=7 d=0
-- expect: error division
-- refuses: bounds
