-- Futhark coalescing/safety-condition-4/neg0.fut: ys is a row of zs, already in
-- another block than its own, so it is not built in row j of xs; zs's rows are built
-- in place (Futhark: 1 allocation).
def main (n : i64) (xs : [n][n]i32) (zs0 : [n][n]i32) (i : i64) (j : i64) : ([n][n]i32) =
  assume 0 <= i && i < n && 0 <= j && j < n
  let (zs : [n][n]i32) = kernel a < n do
    let (row : [n]i32) = kernel b < n do
      let (v : i32) = zs0[a, b]
      let w = v * 3i32
      in (w)
    in (row)
  let (ys : [n]i32) = zs[i]
  let (xs2 : [n][n]i32) = xs with [j] = ys
  in (xs2)
-- input: n=2 xs=[[2, 2], [2, 2]] zs0=[[3, 4], [10, 20]] i=0 j=0
-- expect: valid
-- expect: short-circuit 1
-- refuses: 6.4.1 change of layout
