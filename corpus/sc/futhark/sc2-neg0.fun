-- Futhark coalescing/safety-condition-2/neg0.fut: ys is a parameter, so it exists
-- before xs; it cannot be built in xs (Futhark: 1 allocation).
def main (n : i64) (i : i64) (ys : [n]i64) : ([n][n]i64) =
  assume 0 <= i && i < n
  let (xs : [n][n]i64) = kernel a < n do
    let (row : [n]i64) = kernel b < n do
      let v = a * n + b
      in (v)
    in (row)
  let (xs2 : [n][n]i64) = xs with [i] = ys
  in (xs2)
-- input: n=3 i=0 ys=[10, 20, 30]
-- expect: valid
-- expect: short-circuit 1
-- refuses: creation point
