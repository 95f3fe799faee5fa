-- The source runs out of memory at the iota
-- (dst is live too), and after sc the update's run-time bounds check, moved above the
-- iota, ends the run with a bounds error. Resource errors are the interpreter's limits:
-- a source that runs out accepts any end of a stage (docs/tools.md).
def slice (n : i64) (k : i64) (dst : [n]i64) : ([n]i64) =
  assume k >= 0 && k <= 268435455
  let (src : [k]i64) = iota k
  let (r : [n]i64) = dst with [1 : k] = src
  in (r)
-- input: n=2 k=268435455 dst=[1, 2]
-- input: n=6 k=5 dst=[1, 2, 3, 4, 5, 6]
-- expect: error resource
