-- 1-D Jacobi (the first example of the seed on comprehensive parametric kernels): each
-- of `steps` kernels averages every interior element with its two neighbours. The
-- reads a[i - 1], a[i], a[i + 1] make a tile of B*s + 2 cells that a block's
-- iterations share, so `funmem-cuda --comprehensive` discusses caching it in shared
-- memory (docs/comprehensive.md; the discussion is in jacobi-1d.cases).
def jacobi (n : i64) (steps : i64) (a0 : [n]f64) : ([n]f64) =
  let (r : [n]f64) = loop (a : [n]f64) = (a0) for t < steps do
    let (b : [n]f64) = kernel i < n do
      let edge = i == 0 || i == n - 1
      let (v : f64) = if edge then
          let y = a[i]
          in (y)
        else
          let x = a[i - 1]
          let y = a[i]
          let z = a[i + 1]
          let w = (x + y + z) / 3.0
          in (w)
      in (v)
    in (b)
  in (r)
-- input: n=10 steps=3
-- input: n=1 steps=2
-- input: n=1037 steps=3
-- expect: valid
