-- Issue 42, class 13: the else branch returns b, created before the if, so b is built in
-- x's row 0 from its creation; the then branch creates its result y0 there too and then
-- sums b in a loop. Built in one place, the loop would sum y0's 7s instead of b's 0..n-1:
-- the reads of b in the other branch are uses of the destination, and the point is
-- refused. Counterpart: if-outside-read-before.fun.
def f (n : i64) (cond : bool) (x : [2][n]i64) : ([2][n]i64, i64) =
  let (b : [n]i64) = iota n
  let (y : [n]i64) (r : i64) = if cond then
      let (y0 : [n]i64) = replicate n 7
      let z0 = 0
      let (t : i64) = loop (acc : i64) = (z0) for j < n do
        let v = b[j]
        let acc2 = acc + v
        in (acc2)
      in (y0, t)
    else
      let e = 5
      in (b, e)
  let (x2 : [2][n]i64) = x with [0] = y
  in (x2, r)
-- input: n=3 cond=true x=[[9, 9, 9], [9, 9, 9]]
-- input: n=3 cond=false x=[[9, 9, 9], [9, 9, 9]]
-- expect: valid
-- expect: short-circuit 0
-- refuses: 6.4.3 non-overlap
