-- Futhark coalescing/safety-condition-2/pos0.fut: the memory of xs exists before ys
-- is created, so ys is built in row i (Futhark: 0 allocations).
def main (n : i64) (i : i64) (xs : [n][n]i32) (ys0 : [n]i32) : ([n][n]i32) =
  assume 0 <= i && i < n
  let (ys : [n]i32) = kernel k < n do
    let (v : i32) = ys0[k]
    let w = v * 2i32
    in (w)
  let (xs2 : [n][n]i32) = xs with [i] = ys
  in (xs2)
-- input: n=3 i=2 xs=[[1, 1, 1], [1, 1, 1], [1, 1, 1]] ys0=[5, 7, 9]
-- expect: valid
-- expect: short-circuit 1
