-- Thesis listing 6.1 as a concrete program: x is created, written, read, and then
-- (The thesis writes `scratch`; its unwritten elements would reach the result, which
-- reads unwritten memory, so x starts as zeros here.)
-- placed in row 1 of ys, while ys is read (row 0) and written (row 0) in between.
def listing61 (m : i64) (n : i64) (ys0 : [m][n]i64) : ([m][n]i64) =
  assume m >= 2 && n >= 2
  let (x0 : [n]i64) = replicate n 0
  let (v : i64) = ys0[0, 0]
  let (x : [n]i64) = x0 with [0] = v
  let (w : i64) = x[0]
  let (ys1 : [m][n]i64) = ys0 with [0, 1] = w
  let (r : i64) = ys1[0, 0]
  let (ys : [m][n]i64) = ys1 with [1] = x
  in (ys)
-- input: m=3 n=4
-- expect: valid
-- expect: short-circuit 1
