-- A copy (a73) is built in row 0 of a71 with a run-time check, 0 < m, at the copy;
-- building the copy's source (a72) in that row too would write it before the check:
-- with m = 0 the row lies outside a71's empty block, and the write fails first, at
-- another position. sc refuses the second point (found with boundary data sets).
def fuzz (n : i64) (m : i64) : ([m][n]i64) =
  let (a71_r : [n]i64) = replicate n 0
  let (a71 : [m][n]i64) = replicate m a71_r
  let (a72 : [n]i64) = replicate n 0
  let (a73 : [n]i64) = copy a72
  let (a74 : [m][n]i64) = a71 with [0] = a73
  in (a74)
-- input: n=2 m=0
-- expect: error bounds
-- expect: short-circuit 1
-- refuses: bounds
