-- The allocation of the kernel's result, n * m, overflows before the kernel runs, where
-- the source stops with thread 0's assume: an allocation size that overflows is a
-- resource error, and a stage that runs out where the source ends with an error agrees.
def f (n : i64) (m : i64) : ([n][m]i64) =
  let (r : [n][m]i64) = kernel i < n do
    assume m < 100
    let (z : [m]i64) = replicate m i
    in (z)
  in (r)
-- input: n=2 m=4611686018427387904
-- input: n=2 m=3
-- expect: error assume
-- refuses: bounds
