-- Futhark coalescing/if/one-inside-one-outside.fut: the then branch returns ys0, created
-- before the if, the else branch creates ys1; both are built in row i of xs, as the
-- test's comment says is safe (Futhark: 2 allocations, "we cannot handle this yet").
def main (n : i64) (xs : [n][n]i64) (cond : bool) (i : i64) : ([n][n]i64) =
  assume 0 <= i && i < n
  let (ys0 : [n]i64) = iota n
  let (ys : [n]i64) = if cond then
      in (ys0)
    else
      let (ys1 : [n]i64) = kernel k < n do
        let v = k + 1
        in (v)
      in (ys1)
  let (xs2 : [n][n]i64) = xs with [i] = ys
  in (xs2)
-- input: n=2 xs=[[1, 4], [9, 16]] cond=false i=1
-- input: n=2 xs=[[1, 4], [9, 16]] cond=true i=0
-- expect: valid
-- expect: short-circuit 1
