-- Futhark coalescing/concat/pos0.fut: t0 and t1 are built in t3, and t3 and t2 in t4
-- (Futhark, GPU pipeline: 1 allocation).
def main (n : i64) (ns : [n]i32) : ([3 * n]i32) =
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
  let (t3 : [2 * n]i32) = concat t0 t1
  let (t4 : [3 * n]i32) = concat t3 t2
  in (t4)
-- input: n=2 ns=[5, 15]
-- expect: valid
-- expect: short-circuit 4
