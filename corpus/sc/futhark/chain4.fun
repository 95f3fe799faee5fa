-- Futhark coalescing/chain/chain4.fut: vss is created after xs and wsss is read
-- between them; xs cannot be built in row j of vss (vss is written after xs is
-- created), vss is built in row i of wsss (Futhark, GPU pipeline: 5 allocations; the
-- comment's intent is the one coalescing into wsss[i]).
def main (n : i64) (wsss0 : [n][n][n]i32) (ns : [n]i32) (i : i64) (j : i64) : ([n][n][n]i32, [n][n][n]i32) =
  assume 0 <= i && i < n && 0 <= j && j < n
  let (wsss : [n][n][n]i32) = kernel a < n do
    let (p : [n][n]i32) = kernel b < n do
      let (q : [n]i32) = kernel c < n do
        let (v : i32) = wsss0[a, b, c]
        let w = v + 1i32
        in (w)
      in (q)
    in (p)
  let (xs : [n]i32) = kernel k < n do
    let (v : i32) = ns[k]
    let w = v + 1i32
    in (w)
  let (k0 : i32) = xs[0]
  let (use : [n][n][n]i32) = kernel a < n do
    let (p : [n][n]i32) = kernel b < n do
      let (q : [n]i32) = kernel c < n do
        let (v : i32) = wsss[a, b, c]
        let w = v + k0
        in (w)
      in (q)
    in (p)
  let (v1 : [n]i32) = replicate n 2i32
  let (vss : [n][n]i32) = replicate n v1
  let (vss2 : [n][n]i32) = vss with [j] = xs
  let (wsss2 : [n][n][n]i32) = wsss with [i] = vss2
  in (wsss2, use)
-- input: n=2 wsss0=[[[1, 1], [1, 1]], [[1, 1], [1, 1]]] ns=[2, 4] i=0 j=1
-- expect: valid
-- expect: short-circuit 5
-- refuses: 6.4.3 non-overlap
