-- Futhark coalescing/safety-condition-3/neg0.fut: zs reads row i of xs while ys is
-- live, so ys is not built there (Futhark: 2 allocations).
def main (n : i64) (xs : [n][n]i32) (ys0 : [n]i32) (i : i64) : ([n][n]i32, i32) =
  assume 0 <= i && i < n && n >= 1
  let (ys : [n]i32) = kernel k < n do
    let (v : i32) = ys0[k]
    let w = v + 1i32
    in (w)
  let (y0 : i32) = ys[0]
  let (zs : [n]i32) = kernel k < n do
    let (v : i32) = xs[i, k]
    let w = v + y0
    in (w)
  let (xs2 : [n][n]i32) = xs with [i] = ys
  let (z : i32) = zs[i]
  in (xs2, z)
-- input: n=2 xs=[[2, 2], [2, 2]] ys0=[3, 4] i=1
-- expect: valid
-- expect: short-circuit 0
-- refuses: 6.4.3 non-overlap
