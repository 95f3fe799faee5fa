-- Futhark coalescing/inplace-updates/success.fut: b is built in xs[0 : 4]; its own
-- update reads xs[6 : 2], which b does not cover (Futhark: 0 allocations).
def main (n : i64) (xs : [n]i64) : ([n]i64) =
  assume n >= 8
  let (b : [4]i64) = replicate 4 0
  let (s : [2]i64) = xs[6 : 2]
  let (b2 : [4]i64) = b with [1 : 2] = s
  let (xs2 : [n]i64) = xs with [0 : 4] = b2
  in (xs2)
-- input: n=10 xs=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
-- expect: valid
-- expect: short-circuit 1
-- refuses: 6.4.1 change of layout
