-- A loop body returns ys, created before the loop, as its result; the loop's result is
-- read before a copy of ys. Building ys in the copy's block would leave the loop
-- returning it in its old block: refused (last use), and the values stay as they are.
def f (m : i64) (k : i64) : ([m]i64, i64) =
  assume m > 0
  let (xs : [m]i64) = replicate m 1
  let (ys : [m]i64) = replicate m 2
  let (a : [m]i64) = loop (p : [m]i64) = (xs) for j < k do
    in (ys)
  let (e : i64) = a[0]
  let (zs : [m]i64) = copy ys
  in (zs, e)
-- input: m=2 k=0
-- input: m=3 k=2
-- expect: valid
-- refuses: last use
