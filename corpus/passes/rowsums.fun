-- A per-row temporary inside a kernel: expand takes its allocation out of the kernel
-- (interleaved for the GPU: thread i uses elements i, i + n, i + 2n, ...).
def rowsums (n : i64) (m : i64) (xs : [n][m]i64) : ([n]i64) =
  let (r : [n]i64) = kernel i < n do
    let (row : [m]i64) = xs[i]
    let (sq : [m]i64) = kernel j < m do
      let x = row[j]
      let y = x * x
      in (y)
    let z = 0
    let (s : i64) = loop (acc : i64) = (z) for j < m do
      let v = sq[j]
      let w = acc + v
      in (w)
    in (s)
  in (r)
-- input: n=3 m=4
-- expect: valid
