-- Futhark coalescing/concat/neg0.fut: t3 is created after t0, t1 and t2, so they
-- cannot be built in it; the concatenations themselves are created after t3 and are
-- built in it (Futhark: 4 allocations, none coalesced).
def main (n : i64) (ns : [n]i32) (i : i64) : ([n][3 * n]i32) =
  assume 0 <= i && i < n
  let (t0 : [n]i32) = kernel k < n do
    let (v : i32) = ns[k]
    let w = v + 1i32
    in (w)
  let (t1 : [n]i32) = kernel k < n do
    let (v : i32) = ns[k]
    let w = v * 2i32
    in (w)
  let (t2 : [n]i32) = kernel k < n do
    let (v : i32) = ns[k]
    let w = v / 3i32
    in (w)
  let (z : [3 * n]i32) = replicate (3 * n) 0i32
  let (t3 : [n][3 * n]i32) = replicate n z
  let (c1 : [2 * n]i32) = concat t0 t1
  let (c2 : [3 * n]i32) = concat c1 t2
  let (t4 : [n][3 * n]i32) = t3 with [i] = c2
  in (t4)
-- input: n=2 ns=[5, 15] i=0
-- expect: valid
-- expect: short-circuit 3
-- refuses: 6.4.3 non-overlap
-- refuses: 6.4.3 non-overlap
