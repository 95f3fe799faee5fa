-- Futhark coalescing/concat/pos1.fut: the concatenation of t0, t1 and t2 is built in
-- row i of t3, each concatenation a point of its own (Futhark, GPU pipeline: 1
-- allocation).
def main (n : i64) (ns : [n]i32) (i : i64) : ([n][3 * n]i32) =
  assume 0 <= i && i < n
  let (t3 : [n][3 * n]i32) = scratch
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
  let (c1 : [2 * n]i32) = concat t0 t1
  let (c2 : [3 * n]i32) = concat c1 t2
  let (t4 : [n][3 * n]i32) = t3 with [i] = c2
  in (t4)
-- input: n=2 ns=[5, 15] i=0
-- expect: valid
-- expect: short-circuit 5
