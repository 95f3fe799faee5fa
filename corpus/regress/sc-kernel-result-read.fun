-- Found by funmem-fuzz (seed 1, program 1451) once it generated strided updates: the kernel
-- creating a69 reads column 0 of a59 as each thread's result (a view, copied into the
-- thread's row). Built in a59's block, thread i's row meets the other threads' column
-- reads: the reads of a kernel's results are uses of the destination (6.6.2).
def fuzz (n : i64) (m : i64) (xs : [n]i64) (ys : [n][m]i64) (c : bool) (fs : [m]f64) : ([m]i32) =
  let (a59_r : [m]i64) = replicate m 0
  let (a59 : [m][m]i64) = replicate m a59_r
  let (a69 : [m][m]i64) = kernel ix60 < m do
      let (a68 : [m]i64) = a59[0 : m, 0]
      in (a68)
  let (a70 : [m][m]i64) = copy a69
  let s71 = 1
  let (a72 : [m][m]i64) = a59 with [0 : m : s71] = a70
  let (a138 : [m]i32) = replicate m 0i32
  in (a138)
-- input: n=1 m=2 c=false
-- expect: valid
-- expect: short-circuit 1
-- refuses: 6.4.1 change of layout
-- refuses: 6.6.2 other threads non-overlap
