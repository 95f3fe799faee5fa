-- Futhark coalescing/chain/chain5.fut: a copy, a concat and an update in a chain. t3's
-- replicate (with its allocation) moves above t2's and then t1's creation, so t2 is
-- built in row 1 of t3 and t1 in the second half of t2. t0 stays in its own block:
-- moving the allocation of t3 (its size a product, which may overflow) above t0's
-- kernel (an i32 addition, which may overflow) could change which error a run ends
-- with. Futhark, whose integers wrap, builds all three in t3 (1 allocation).
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
-- expect: short-circuit 1
-- refuses: 6.2 (1) destination memory
-- refuses: 6.2 (1) destination memory
-- refuses: creation point
