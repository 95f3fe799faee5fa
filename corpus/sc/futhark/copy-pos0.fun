-- Futhark tests/memory-block-merging/coalescing/copy/pos0.fut: t0 = map (+1) ns is
-- built where its copy t1 lives (Futhark: 1 allocation, the coalesced copy).
def main (n : i64) (ns : [n]i32) : ([n]i32) =
  let (t0 : [n]i32) = kernel i < n do
    let (v : i32) = ns[i]
    let w = v + 1i32
    in (w)
  let (t1 : [n]i32) = copy t0
  in (t1)
-- input: n=3 ns=[7, 0, 7]
-- expect: valid
-- expect: short-circuit 1
