-- Issue 42, class 6: a strided update with stride s = 0 puts every element of x in one
-- cell of ys. Built there, x's own elements would overwrite each other (the read x[0]
-- would see x[n-1]): the projected place must send distinct elements to distinct cells.
def zero (n : i64) (s : i64) (ys0 : [8]i64) : ([8]i64, i64) =
  assume n > 1 && n <= 8 && s >= 0 && s <= 1
  let (x : [n]i64) = iota n
  let (v : i64) = x[0]
  let (ys : [8]i64) = ys0 with [0 : n : s] = x
  in (ys, v)
-- input: n=3 s=0
-- input: n=3 s=1
-- expect: valid
-- expect: short-circuit 0
-- refuses: 6.4.2 index-function projection
