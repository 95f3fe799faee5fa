-- Futhark coalescing/chain/chain1.fut: xs is built in row j of vss, and vss in row i
-- of wsss (Futhark: 1 allocation).
def main (n : i64) (ns : [n]i32) (i : i64) (j : i64) : ([n][n][n]i32) =
  assume 0 <= i && i < n && 0 <= j && j < n
  let (w1 : [n]i32) = replicate n 1i32
  let (w2 : [n][n]i32) = replicate n w1
  let (wsss : [n][n][n]i32) = replicate n w2
  let (v1 : [n]i32) = replicate n 2i32
  let (vss : [n][n]i32) = replicate n v1
  let (xs : [n]i32) = kernel k < n do
    let (v : i32) = ns[k]
    let w = v + 1i32
    in (w)
  let (vss2 : [n][n]i32) = vss with [j] = xs
  let (wsss2 : [n][n][n]i32) = wsss with [i] = vss2
  in (wsss2)
-- input: n=2 ns=[2, 4] i=0 j=1
-- expect: valid
-- expect: short-circuit 2
