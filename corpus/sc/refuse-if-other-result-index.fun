-- Issue 42, class 4: the if creates y (the source) and b; the row k of the update is
-- read from b after the if. k cannot be lifted to y's creation, the if itself: b does
-- not exist above it (lifted there, the output would read b before its definition).
-- The place k*n + R(n) is then not known at y's creation, and y is not built in D.
def f (n : i64) (c : bool) (D : [2][n]i64) : ([2][n]i64) =
  let (y : [n]i64) (b : [2]i64) = if c then
      let (y0 : [n]i64) = iota n
      let (b0 : [2]i64) = iota 2
      in (y0, b0)
    else
      let (y1 : [n]i64) = replicate n 5
      let (b1 : [2]i64) = replicate 2 0
      in (y1, b1)
  let (k0 : i64) = b[1]
  let (k : i64) = min(max(k0, 0), 1)
  let (D2 : [2][n]i64) = D with [k] = y
  in (D2)
-- input: n=3 c=true D=[[9, 9, 9], [9, 9, 9]]
-- input: n=3 c=false D=[[9, 9, 9], [9, 9, 9]]
-- expect: valid
-- expect: short-circuit 0
-- refuses: 6.4.2 index-function projection
