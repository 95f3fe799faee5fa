-- Matrix transposition (the second example of the seed on comprehensive parametric
-- kernels): b[i, j] = a[j, i]. A kernel nest, so `funmem-cuda --comprehensive` gives it
-- blocks of B0 x B1 threads; the read a[j, i] is not coalesced along a row of threads,
-- and a block's B0 x (B1*s) elements of `a` become a shared-memory tile loaded along
-- a's rows (docs/comprehensive.md; the discussion is in transpose.cases).
def transposition (n : i64) (m : i64) (a : [m][n]f64) : ([n][m]f64) =
  let (b : [n][m]f64) = kernel i < n do
    let (row : [m]f64) = kernel j < m do
      let x = a[j, i]
      in (x)
    in (row)
  in (b)
-- input: n=3 m=5
-- input: n=1 m=1
-- input: n=67 m=45
-- input: n=33 m=1
-- expect: valid
