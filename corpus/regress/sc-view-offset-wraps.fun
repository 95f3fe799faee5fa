-- The view ys[k*k + 1 + {(1 : 1)}] at k = 2^32: its offset wraps to 1 (LMAD components are
-- modulo 2^64), the cell the update writes. sc may not take it as the integer k*k + 1 >= 2:
-- an LMAD slice is inside its block as integers only where its extent is shown within +-2^62.
-- refuses: bounds
def f (k : i64) (ys : [4]i64) : ([4]i64, i64) =
  assume k >= 1
  let (x : [1]i64) = kernel i < 1 do
    let w = i + 100
    in (w)
  let (v : [1]i64) = ys[k*k + 1 + {(1 : 1)}]
  let z = v[0]
  let (ys2 : [4]i64) = ys with [1 : 1] = x
  in (ys2, z)
-- input: k=4294967296 ys=[0, 1, 2, 3]
-- input: k=1 ys=[0, 1, 2, 3]
-- expect: valid
