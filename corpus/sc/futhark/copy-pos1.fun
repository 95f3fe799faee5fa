-- Futhark coalescing/copy/pos1.fut: t0 is created before t1, a replicate of iota n that
-- would overwrite it in row i. Futhark moves the replicate up and builds t0 in row i
-- (2 allocations), and so does funmem: t1's allocation (n * n elements) may only run
-- out of memory, so it may pass t0's kernel (an addition that may overflow).
def main (n : i64) (i : i64) (ns : [n]i64) : ([n][n]i64) =
  assume 0 <= i && i < n
  let (t0 : [n]i64) = kernel k < n do
    let (v : i64) = ns[k]
    let w = v + 1
    in (w)
  let (r : [n]i64) = iota n
  let (t1 : [n][n]i64) = replicate n r
  let (t2 : [n][n]i64) = t1 with [i] = t0
  in (t2)
-- input: n=3 i=1 ns=[7, 0, 7]
-- expect: valid
-- expect: short-circuit 1
