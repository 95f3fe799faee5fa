-- IMP's address of the update ys[((a-b)*c)/c] is k * ((a*c - b*c)/c) + c0: an address is
-- evaluated over the integers (inside / too) and taken modulo 2^64.
-- refuses: 6.4.2 index-function projection
def f (a : i64) (b : i64) (c : i64) (m : i64) (k : i64) (ys : [m][k]i64) : ([m][k]i64) =
  let d = a - b
  assume d >= 0
  assume d <= 10
  assume c >= 1
  assume c <= 10
  let (x : [k]i64) = kernel i < k do
    let w = i
    in (w)
  let (ys2 : [m][k]i64) = ys with [((a-b)*c)/c] = x
  in (ys2)
-- input: a=4611686018427387904 b=4611686018427387903 c=5 m=7 k=3
-- input: a=4611686018427387904 b=4611686018427387903 c=5 m=3 k=3
-- expect: valid
