-- Thesis 6.4.1: the short-circuiting source b is a transpose of a, and c is another
-- view of a; all must follow b into ys. (The thesis gives c the type [m]; a slice
-- a[x:y] of an [n][m] array has type [y][m].)
def layout (p : i64) (m : i64) (n : i64) (i : i64) (x : i64) (y : i64) (ys0 : [p][m][n]i64) : ([p][m][n]i64, i64) =
  assume 0 <= i && i < p
  let (a : [n][m]i64) = kernel j < n do
    let (r : [m]i64) = kernel k < m do
      let v = j * m + k
      in (v)
    in (r)
  let (b : [m][n]i64) = transpose a
  let (c : [y][m]i64) = a[x : y]
  let (c0 : i64) = c[0, 0]
  let (ys : [p][m][n]i64) = ys0 with [i] = b
  in (ys, c0)
-- input: p=2 m=3 n=4 i=1 x=1 y=2
-- expect: valid
-- expect: short-circuit 2
