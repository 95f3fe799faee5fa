-- found by funmem-fuzz --seed 1 --out-of-bounds (program 5): check 'bounds error lost' failed:
--   input at line 10 after to-imp: the bounds error is lost: runs without error
-- Block merging puts a115 (n = 1 element) in the block of a118 (2 x 2); IMP checked
-- only the block's bounds, so the update at index n wrote into a118's block. to-imp now
-- asserts every index against its array (tests/verifier/fuzz_test.cpp runs every stage).
def fuzz (n : i64) (m : i64) (xs : [n]i64) (ys : [n][m]i64) (c : bool) (fs : [m]f64) : ([m][m]i64, [m][m]i64) =
  let (a115 : [n]i64) = replicate n 0
  let (a116 : [n]i64) = a115 with [n] = 0
  let (a117 : [m]i64) = replicate m 0
  let (a118 : [m][m]i64) = replicate m a117
  let (a123_r : [m]i64) = replicate m 0
  let (a123 : [m][m]i64) = replicate m a123_r
  in (a123, a118)
-- input: n=1 m=2 c=false
-- expect: error bounds
