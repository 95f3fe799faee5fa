-- Futhark coalescing/chain/chain3.fut: xs cannot be built in row j of vss, which
-- use_vss reads after xs is created; vss is built in row i of wsss (Futhark: 1;
-- funmem also builds the rows of both nested maps in place).
def main (n : i64) (vss0 : [n][n]i32) (ns : [n]i32) (i : i64) (j : i64) : ([n][n][n]i32, [n][n]i32) =
  assume 0 <= i && i < n && 0 <= j && j < n
  let (w1 : [n]i32) = replicate n 1i32
  let (w2 : [n][n]i32) = replicate n w1
  let (wsss : [n][n][n]i32) = replicate n w2
  let (vss : [n][n]i32) = kernel a < n do
    let (p : [n]i32) = kernel b < n do
      let (v : i32) = vss0[a, b]
      let w = v + 2i32
      in (w)
    in (p)
  let (xs : [n]i32) = kernel k < n do
    let (v : i32) = ns[k]
    let w = v + 1i32
    in (w)
  let (k0 : i32) = xs[0]
  let (use : [n][n]i32) = kernel a < n do
    let (p : [n]i32) = kernel b < n do
      let (v : i32) = vss[a, b]
      let w = v + k0
      in (w)
    in (p)
  let (vss2 : [n][n]i32) = vss with [j] = xs
  let (wsss2 : [n][n][n]i32) = wsss with [i] = vss2
  in (wsss2, use)
-- input: n=2 vss0=[[2, 2], [2, 2]] ns=[2, 4] i=0 j=1
-- expect: valid
-- expect: short-circuit 3
-- refuses: 6.4.3 non-overlap
