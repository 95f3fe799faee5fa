-- The same update with the assume before the source's creation: the bounds hold at the
-- creation, so src is built in dst's memory; a failing input still ends with the
-- assume, before anything is written.
def early (n : i64) (k : i64) (dst : [n]i64) : ([n]i64) =
  assume 1 + k <= n
  let (src : [k]i64) = iota k
  let (r : [n]i64) = dst with [1 : k] = src
  in (r)
-- input: n=1 k=5000 dst=[1]
-- expect: error assume
-- input: n=6 k=5 dst=[1, 2, 3, 4, 5, 6]
-- expect: short-circuit 1
