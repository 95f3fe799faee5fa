-- As sc-view-offset-wraps, read by the other thread of the creating kernel (6.6.2): built in
-- place, thread 0 would overwrite the cell thread 1 reads.
-- refuses: bounds
def f (k : i64) (ys : [2]i64) : ([2]i64) =
  assume k >= 1
  let (v : [2]i64) = ys[k*k + {(2 : 1)}]
  let (x : [2]i64) = kernel i < 2 do
    let j = 1 - i
    let r = v[j]
    let w = r + 100
    in (w)
  let (ys2 : [2]i64) = ys with [0 : 2] = x
  in (ys2)
-- input: k=4294967296 ys=[0, 1]
-- expect: valid
