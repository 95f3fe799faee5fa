-- Issue 42, class 1: the read of ys0[j] runs before `assume j >= n`, so that fact does
-- not hold when it runs: the question "does x's place 0..n-1 meet ys0[j]?" is asked
-- with the facts before the read, and the point is refused. With j = 0 the read would
-- see x's values, and the division by w would fail where the source divides by 5.
def late (n : i64) (j : i64) (ys0 : [8]i64) : ([8]i64, i64) =
  assume n > 0 && n <= 8 && j >= 0 && j < 8
  let (x : [n]i64) = iota n
  let (w : i64) = ys0[j]
  let (q : i64) = 10 / w
  assume j >= n
  let (ys : [8]i64) = ys0 with [0 : n] = x
  in (ys, q)
-- input: n=2 j=0 ys0=[5, 5, 5, 5, 5, 5, 5, 5]
-- expect: error assume
-- input: n=2 j=3 ys0=[5, 5, 5, 5, 5, 5, 5, 5]
-- expect: short-circuit 0
-- refuses: 6.4.3 non-overlap
