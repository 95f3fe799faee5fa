-- Futhark's issue 1930 with k known non-negative and small (so that iota k cannot fail): the slice dst[1 : k] is not provably
-- inside dst, so its check `k <= 0 || (0 <= 1 && 1 < n && 0 <= 1 + (k - 1) * 1 && ...)`
-- goes to src's creation; k = 5000 ends in the update's bounds error before iota
-- writes anything, k = 5 fits.
def slice (n : i64) (k : i64) (dst : [n]i64) : ([n]i64) =
  assume k >= 0 && k <= 1000000
  let (src : [k]i64) = iota k
  let (r : [n]i64) = dst with [1 : k] = src
  in (r)
-- input: n=1 k=5000 dst=[1]
-- expect: error bounds
-- input: n=6 k=5 dst=[1, 2, 3, 4, 5, 6]
-- expect: short-circuit 1
