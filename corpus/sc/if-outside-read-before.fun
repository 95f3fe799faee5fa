-- The counterpart of if-outside-read-in-loop.fun: the then branch sums b before it
-- creates y0, so b's cells are read before y0 overwrites them, and both branches build
-- their result in x's row 0.
def f (n : i64) (cond : bool) (x : [2][n]i64) : ([2][n]i64, i64) =
  let (b : [n]i64) = iota n
  let (y : [n]i64) (r : i64) = if cond then
      let z0 = 0
      let (t : i64) = loop (acc : i64) = (z0) for j < n do
        let v = b[j]
        let acc2 = acc + v
        in (acc2)
      let (y0 : [n]i64) = replicate n 7
      in (y0, t)
    else
      let e = 5
      in (b, e)
  let (x2 : [2][n]i64) = x with [0] = y
  in (x2, r)
-- input: n=3 cond=true x=[[9, 9, 9], [9, 9, 9]]
-- input: n=3 cond=false x=[[9, 9, 9], [9, 9, 9]]
-- expect: valid
-- expect: short-circuit 1
