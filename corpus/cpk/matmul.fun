-- Matrix multiplication (the seed's third example on comprehensive parametric
-- kernels): c[i, j] = sum over q of a[i, q] * b[q, j]. A kernel nest, so
-- `funmem-cuda --comprehensive` gives it blocks of B0 x B1 threads with s columns per
-- thread; its loop over q runs in strips of B0, each strip's B0 x B0 block of `a` and
-- B0 x (B1*s) block of `b` in shared memory, as the seed's figure 4 (docs/
-- comprehensive.md; the discussion is in matmul.cases).
def matmul (n : i64) (d : i64) (m : i64) (a : [n][d]f64) (b : [d][m]f64) : ([n][m]f64) =
  let (c : [n][m]f64) = kernel i < n do
    let (row : [m]f64) = kernel j < m do
      let z = 0.0
      let (s : f64) = loop (acc : f64) = (z) for q < d do
        let x = a[i, q]
        let y = b[q, j]
        let p = acc + x * y
        in (p)
      in (s)
    in (row)
  in (c)
-- input: n=3 d=4 m=5
-- input: n=1 d=1 m=1
-- input: n=33 d=7 m=70
-- input: n=2 d=0 m=3
-- expect: valid
