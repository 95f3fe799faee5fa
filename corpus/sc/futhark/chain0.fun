-- Futhark coalescing/chain/chain0.fut: t0 is built where its copy t1 lives, and t1 in
-- the second half of t2 (Futhark: 1 allocation).
def main (n : i64) (ns : [n]i32) : ([2 * n]i32) =
  let (t0 : [n]i32) = kernel k < n do
    let (v : i32) = ns[k]
    let w = v + 1i32
    in (w)
  let (t1 : [n]i32) = copy t0
  let (t2 : [2 * n]i32) = concat ns t1
  in (t2)
-- input: n=3 ns=[7, 0, 7]
-- expect: valid
-- expect: short-circuit 2
-- refuses: creation point
