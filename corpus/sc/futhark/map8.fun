-- Futhark coalescing/map/map8.fut: map2 (+) xs ys over a unique xs is built in xs's
-- block: an in-place scalar map (6.9) in funmem (Futhark, GPU pipeline: 0 allocations).
def main (n : i64) (xs : [n]i32) (ys : [n]i32) : ([n]i32) =
  let (zs : [n]i32) = kernel k < n do
    let (a : i32) = xs[k]
    let (b : i32) = ys[k]
    let w = a + b
    in (w)
  in (zs)
-- input: n=3 xs=[1, 2, 3] ys=[2, 3, 4]
-- expect: valid
-- expect: short-circuit 0
