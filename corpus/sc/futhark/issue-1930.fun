-- Futhark coalescing/issue-1930.fut: the update's slice has 3 elements and src has k;
-- with k = 5000 the run must end in an error, with nothing written past dst.
def main (n : i64) (k : i64) (dst : [n]i64) : ([n]i64) =
  let (src : [k]i64) = iota k
  let (r : [n]i64) = dst with [1 : k] = src
  in (r)
-- input: n=1 k=5000 dst=[1]
-- expect: error bounds
-- refuses: bounds
-- expect: short-circuit 0
