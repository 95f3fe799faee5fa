-- Futhark coalescing/copy/pos1.fut, in the order written: t0 is created before t1, a
-- replicate of iota n, which would overwrite t0 in row i; refused. (Futhark coalesces
-- it: its simplifier moves the replicate above the map first.)
def main (n : i64) (i : i64) (ns : [n]i32) : ([n][n]i32) =
  assume 0 <= i && i < n
  let (t0 : [n]i32) = kernel k < n do
    let (v : i32) = ns[k]
    let w = v + 1i32
    in (w)
  let (r : [n]i32) = kernel k < n do
    let w = i32(k)
    in (w)
  let (t1 : [n][n]i32) = replicate n r
  let (t2 : [n][n]i32) = t1 with [i] = t0
  in (t2)
-- input: n=3 i=1 ns=[7, 0, 7]
-- expect: valid
-- expect: short-circuit 0
-- refuses: 6.4.3 non-overlap
