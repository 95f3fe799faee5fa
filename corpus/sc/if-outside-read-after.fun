-- The else branch returns b, created before the if; the then branch reads b after
-- creating y0. Built in one place, that read would see y0 (a * 3, not a + 1), so the
-- if's result is not built in x[0], and the run gives b[0] = a[0] + 1.
def f (n : i64) (cond : bool) (x : [n][n]i64) (a : [n]i64) : ([n][n]i64, i64) =
  assume n >= 1
  let (b : [n]i64) = kernel k < n do
    let (v : i64) = a[k]
    let w = v + 1
    in (w)
  let (y : [n]i64) (r : i64) = if cond then
      let (y0 : [n]i64) = kernel k < n do
        let (v : i64) = a[k]
        let w = v * 3
        in (w)
      let (b0 : i64) = b[0]
      in (y0, b0)
    else
      let z = 0
      in (b, z)
  let (x2 : [n][n]i64) = x with [0] = y
  in (x2, r)
-- input: n=2 cond=true x=[[9, 9], [9, 9]] a=[1, 4]
-- input: n=2 cond=false x=[[9, 9], [9, 9]] a=[1, 4]
-- expect: valid
-- expect: short-circuit 0
-- refuses: 6.4.3 non-overlap
