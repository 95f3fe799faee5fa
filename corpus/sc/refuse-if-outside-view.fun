-- Issue 42, class 14: the then branch returns b, created before the if, and reads it
-- through a view v. Built in x's row 0 from its creation, b would move to x's block while
-- v, a view, must stay in b's block: the output would not type-check. Two rules refuse
-- it, each on its own: v lives in b's block, which the source's aliases hold ("block
-- shared with other arrays", checked first), and an if's outside result may only be read
-- in the branches ("branch result used otherwise").
def f (n : i64) (cond : bool) (x : [2][n]i64) : ([2][n]i64, i64) =
  assume n >= 1
  let (b : [n]i64) = iota n
  let (y : [n]i64) (r : i64) = if cond then
      let (v : [n]i64) = b[0 : n]
      let (w : i64) = v[0]
      in (b, w)
    else
      let (y0 : [n]i64) = replicate n 7
      let e = 5
      in (y0, e)
  let (x2 : [2][n]i64) = x with [0] = y
  in (x2, r)
-- input: n=3 cond=true x=[[9, 9, 9], [9, 9, 9]]
-- input: n=3 cond=false x=[[9, 9, 9], [9, 9, 9]]
-- expect: valid
-- expect: short-circuit 0
-- refuses: creation point
