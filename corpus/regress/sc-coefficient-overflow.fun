-- A slice stride of -2^63: the place's polynomial coefficients do not fit 64 bits, so
-- sc refuses the point (summary) and the program runs as written.
def f (n : i64) (ys0 : [n]i64) : ([n]i64) =
  assume n >= 4 && n <= 100
  let (x : [1]i64) = iota 1
  let (ys : [n]i64) = ys0 with [3 : 1 : -9223372036854775808] = x
  in (ys)
-- input: n=4
-- expect: valid
-- expect: short-circuit 0
-- refuses: summary
