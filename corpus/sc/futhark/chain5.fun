-- Futhark coalescing/chain/chain5.fut: a copy, a concat and an update in a chain: t0
-- is built in t1 and t1 in the second half of t2; t2 is created before t3, whose
-- replicate would overwrite it in row 1, so that link is refused in the order written
-- (Futhark: 1 allocation: its simplifier moves the replicate up first).
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
-- expect: short-circuit 2
-- refuses: creation point
-- refuses: 6.4.3 non-overlap
