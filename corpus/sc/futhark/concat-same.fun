-- Futhark tests/memory-block-merging/coalescing/concat/same.fut: concat ys ys. ys is
-- built in the second half of zs; the concat copies it into the first half (Futhark:
-- 1 allocation, one of the two copies stays).
def main (n : i64) (xs : [n]i32) : ([2 * n]i32) =
  let (ys : [n]i32) = kernel i < n do
    let (v : i32) = xs[i]
    let w = v * 10i32
    in (w)
  let (zs : [2 * n]i32) = concat ys ys
  in (zs)
-- input: n=2 xs=[13, 4]
-- expect: valid
-- expect: short-circuit 1
