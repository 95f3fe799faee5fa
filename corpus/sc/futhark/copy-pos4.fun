-- Futhark coalescing/copy/pos4.fut: t0 = map2 (+) t1[i] ns; thread k reads only the
-- element it writes, so t0 is built in row i of t1 (Futhark: 0 allocations).
def main (n : i64) (t1 : [n][n]i32) (i : i64) (ns : [n]i32) : ([n][n]i32) =
  assume 0 <= i && i < n
  let (row : [n]i32) = t1[i]
  let (t0 : [n]i32) = kernel k < n do
    let (a : i32) = row[k]
    let (b : i32) = ns[k]
    let w = a + b
    in (w)
  let (t2 : [n][n]i32) = t1 with [i] = t0
  in (t2)
-- input: n=3 t1=[[0, 1, 2], [0, 1, 2], [0, 1, 2]] i=1 ns=[7, 0, 7]
-- expect: valid
-- expect: short-circuit 1
