-- The safe counterpart of sc-view-offset-wraps: with k bounded by the facts, the view's
-- extent is shown within +-2^62, its integer offset k*k + 1 is its address, and the
-- creation of x is built in place.
def f (k : i64) (ys : [4]i64) : ([4]i64, i64) =
  assume k >= 1 && k <= 1
  let (x : [1]i64) = kernel i < 1 do
    let w = i + 100
    in (w)
  let (v : [1]i64) = ys[k*k + 1 + {(1 : 1)}]
  let z = v[0]
  let (ys2 : [4]i64) = ys with [1 : 1] = x
  in (ys2, z)
-- input: k=1 ys=[0, 1, 2, 3]
-- expect: valid
-- expect: short-circuit 1
