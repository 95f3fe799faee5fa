-- Futhark coalescing/map/map3.fut: a map of maps over xsss[i] is built in xsss[i], each
-- row of the inner map in its row (Futhark: 0 allocations).
def main (n : i64) (xsss : [n][n][n]i32) (i : i64) : ([n][n][n]i32) =
  assume 0 <= i && i < n
  let (xss : [n][n]i32) = kernel a < n do
    let (row : [n]i32) = kernel b < n do
      let (v : i32) = xsss[i, a, b]
      let w = v + 1i32
      in (w)
    in (row)
  let (xsss2 : [n][n][n]i32) = xsss with [i] = xss
  in (xsss2)
-- input: n=3 xsss=[[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[0, 0, 0], [1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4], [5, 5, 5]]] i=1
-- expect: valid
-- expect: short-circuit 2
