-- Futhark coalescing/chain/chain5.fut: a copy, a concat and an update in a chain. t3's
-- replicate (with its allocation) moves above the creations of t2, t1 and t0, so t2 is
-- built in row 1 of t3, t1 in the second half of t2 and t0 where its copy t1 lives:
-- all three in t3, as Futhark (1 allocation). The allocation may only run out of
-- memory, so it may pass t0's kernel, whose i32 addition may overflow.
def main (n : i64) (ns : [n]i32) : ([2][2 * n]i32) =
  let (t0 : [n]i32) = kernel k < n do
    let (v : i32) = ns[k]
    let w = v + 1i32
    in (w)
  let (t1 : [n]i32) = copy t0
  let (t2 : [2 * n]i32) = concat ns t1
  let (z : [2 * n]i32) = replicate (2 * n) 0i32
  let (t3 : [2][2 * n]i32) = replicate 2 z
  let (t4 : [2][2 * n]i32) = t3 with [1] = t2
  in (t4)
-- input: n=3 ns=[7, 0, 7]
-- expect: valid
-- expect: short-circuit 3
-- refuses: creation point
