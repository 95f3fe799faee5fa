-- Futhark coalescing/map/map.fut: map (+1) over a unique xs is built in xs's block; in
-- funmem this is an in-place scalar map (6.9), counted apart from the points (Futhark,
-- GPU pipeline: 0 allocations).
def main (n : i64) (xs : [n]i32) : ([n]i32) =
  let (ys : [n]i32) = kernel k < n do
    let (v : i32) = xs[k]
    let w = v + 1i32
    in (w)
  in (ys)
-- input: n=3 xs=[1, 2, 3]
-- expect: valid
-- expect: short-circuit 0
