-- Futhark coalescing/map/map6.fut: both maps are built in their halves of the
-- concatenation (Futhark, GPU pipeline: 1 allocation).
def main (n : i64) (xs : [n]i64) : ([2 * n]i64) =
  let (ys : [n]i64) = kernel k < n do
    let (v : i64) = xs[k]
    let w = v + 1
    in (w)
  let (zs : [n]i64) = kernel k < n do
    let (v : i64) = xs[k]
    let w = v * 2
    in (w)
  let (r : [2 * n]i64) = concat ys zs
  in (r)
-- input: n=3 xs=[1, 2, 3]
-- expect: valid
-- expect: short-circuit 2
