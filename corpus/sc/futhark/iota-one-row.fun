-- Futhark coalescing/iota-one-row.fut: iota m is built in row i of xs (Futhark: 0
-- allocations).
def main (n : i64) (m : i64) (i : i64) (xs : [n][m]i64) : ([n][m]i64) =
  assume 0 <= i && i < n
  let (r : [m]i64) = iota m
  let (xs2 : [n][m]i64) = xs with [i] = r
  in (xs2)
-- input: n=2 m=5 i=1 xs=[[10, 11, 12, 13, 14], [15, 16, 17, 18, 19]]
-- expect: valid
-- expect: short-circuit 1
