-- Futhark coalescing/if/both-outside.fut: both branches return arrays created before
-- the if; building both in row i would overwrite one with the other (Futhark: 2
-- allocations).
def main (n : i64) (xs : [n][n]i64) (cond : bool) (i : i64) : ([n][n]i64) =
  assume 0 <= i && i < n
  let (ys0 : [n]i64) = iota n
  let (ys1 : [n]i64) = kernel k < n do
    let v = k + 1
    in (v)
  let (ys : [n]i64) = if cond then
      in (ys0)
    else
      in (ys1)
  let (xs2 : [n][n]i64) = xs with [i] = ys
  in (xs2)
-- input: n=2 xs=[[1, 4], [9, 16]] cond=false i=1
-- input: n=2 xs=[[1, 4], [9, 16]] cond=true i=1
-- expect: valid
-- expect: short-circuit 0
-- refuses: creation point
