-- Futhark coalescing/copy/neg1.fut: thread k also reads t1[i][(k + 1) % n], which
-- thread k + 1 writes, so t0 cannot be built in row i of t1 (Futhark: 1 allocation).
def main (n : i64) (t1 : [n][n]i32) (i : i64) (ns : [n]i32) : ([n][n]i32) =
  assume 0 <= i && i < n
  let (row : [n]i32) = t1[i]
  let (t0 : [n]i32) = kernel k < n do
    let (a : i32) = row[k]
    let (b : i32) = ns[k]
    let (c : i32) = row[(k + 1) % n]
    let w = a + b + c
    in (w)
  let (t2 : [n][n]i32) = t1 with [i] = t0
  in (t2)
-- input: n=3 t1=[[0, 1, 2], [3, 4, 5], [6, 7, 8]] i=1 ns=[7, 1, 5]
-- expect: valid
-- expect: short-circuit 0
-- refuses: 6.6.2 other threads non-overlap
