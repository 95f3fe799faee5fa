-- Futhark coalescing/safety-condition-1/neg0.fut: ys is used after the update (in zs),
-- so it is not built in row i of xs (Futhark, GPU pipeline: 3 allocations).
def main (n : i64) (i : i64) (ys0 : [n]i64) : ([n][n]i64, [n]i64) =
  assume 0 <= i && i < n
  let (xs : [n][n]i64) = kernel a < n do
    let (row : [n]i64) = kernel b < n do
      let v = a * n + b
      in (v)
    in (row)
  let (ys : [n]i64) = kernel k < n do
    let (v : i64) = ys0[k]
    let w = v + 1
    in (w)
  let (xs2 : [n][n]i64) = xs with [i] = ys
  let (zs : [n]i64) = kernel k < n do
    let (v : i64) = ys[k]
    let w = v + 1
    in (w)
  in (xs2, zs)
-- input: n=4 i=3 ys0=[0, 1, 2, 3]
-- expect: valid
-- expect: short-circuit 1
-- refuses: last use
