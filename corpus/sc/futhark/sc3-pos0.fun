-- Futhark coalescing/safety-condition-3/pos0.fut: xs is not used while ys is live, so
-- ys is built in row i of xs (Futhark: 1 allocation).
def main (n : i64) (xs : [n][n]i32) (ys0 : [n]i32) (i : i64) : ([n][n]i32, i32) =
  assume 0 <= i && i < n
  let (ys : [n]i32) = kernel k < n do
    let (v : i32) = ys0[k]
    let w = v + 1i32
    in (w)
  let (zs : [n]i32) = kernel k < n do
    let (v : i32) = ys[k]
    let w = v + 1i32
    in (w)
  let (xs2 : [n][n]i32) = xs with [i] = ys
  let (z : i32) = zs[i]
  in (xs2, z)
-- input: n=2 xs=[[2, 2], [2, 2]] ys0=[3, 4] i=1
-- expect: valid
-- expect: short-circuit 1
