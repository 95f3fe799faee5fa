-- Futhark coalescing/concat/pos3.fut: a concat in the other order than the operands
-- were created (Futhark: 1 allocation).
def main (n : i64) (ns : [n]i32) : ([2 * n]i32) =
  let (t0 : [n]i32) = kernel k < n do
    let (v : i32) = ns[k]
    let w = v + 1i32
    in (w)
  let (t1 : [n]i32) = kernel k < n do
    let (v : i32) = ns[k]
    let w = v * 2i32
    in (w)
  let (t2 : [2 * n]i32) = concat t1 t0
  in (t2)
-- input: n=2 ns=[5, 15]
-- expect: valid
-- expect: short-circuit 2
