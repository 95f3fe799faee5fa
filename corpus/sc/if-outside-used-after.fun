-- The else branch returns b, created before the if, and b is read after the if: it
-- must keep its own block, so the if's result is not built in x[0].
def f (n : i64) (cond : bool) (x : [n][n]i64) (a : [n]i64) : ([n][n]i64, i64) =
  assume n >= 1
  let (b : [n]i64) = kernel k < n do
    let (v : i64) = a[k]
    let w = v + 1
    in (w)
  let (y : [n]i64) = if cond then
      let (y0 : [n]i64) = kernel k < n do
        let (v : i64) = a[k]
        let w = v * 3
        in (w)
      in (y0)
    else
      in (b)
  let (x2 : [n][n]i64) = x with [0] = y
  let (b0 : i64) = b[0]
  in (x2, b0)
-- input: n=2 cond=true x=[[9, 9], [9, 9]] a=[1, 4]
-- input: n=2 cond=false x=[[9, 9], [9, 9]] a=[1, 4]
-- expect: valid
-- expect: short-circuit 0
-- refuses: last use
