-- The update's bounds follow only from an assume that runs after the source's creation:
-- built in dst's memory, src would be written (5,000 elements into a block of one)
-- before the assumption is checked. sc refuses it; every stage ends with the assume.
def late (n : i64) (k : i64) (dst : [n]i64) : ([n]i64) =
  let (src : [k]i64) = iota k
  assume 1 + k <= n
  let (r : [n]i64) = dst with [1 : k] = src
  in (r)
-- input: n=1 k=5000 dst=[1]
-- expect: error assume
-- refuses: bounds
