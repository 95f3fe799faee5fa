-- A kernel of no thread whose rows are [2^32][2^32]: its allocation k * a * b is 0
-- (sizes are evaluated exactly, left to right the product would overflow), and IMP's
-- result has no element to read. (An outside review's probe.)
def f (k : i64) (a : i64) (b : i64) : ([k][a][b]i64) =
  let (ys : [k][a][b]i64) = kernel i < k do
    let (r : [a][b]i64) = scratch
    in (r)
  in (ys)
-- input: k=0 a=4294967296 b=4294967296
-- expect: valid
-- expect: short-circuit 0
-- refuses: creation point
