-- The counterpart of refuse-if-other-result-index.fun: b is created before the if, so
-- the row k read from it is lifted to the if (y's creation) and y is built in row k of
-- D by both branches.
def f (n : i64) (c : bool) (D : [2][n]i64) : ([2][n]i64) =
  let (b : [2]i64) = iota 2
  let (y : [n]i64) = if c then
      let (y0 : [n]i64) = iota n
      in (y0)
    else
      let (y1 : [n]i64) = replicate n 5
      in (y1)
  let (k0 : i64) = b[1]
  let (k : i64) = min(max(k0, 0), 1)
  let (D2 : [2][n]i64) = D with [k] = y
  in (D2)
-- input: n=3 c=true D=[[9, 9, 9], [9, 9, 9]]
-- input: n=3 c=false D=[[9, 9, 9], [9, 9, 9]]
-- expect: valid
-- expect: short-circuit 1
