-- A dense LMAD slice a[R(c1, c2)] with a negative extent: the source stops with a size
-- error at the LMAD even where the product is positive (-1 * -1); to-imp asserts each
-- extent non-negative there, after evaluating them all (found by an outside review).
def f (n : i64) (c1 : i64) (c2 : i64) (a : [n]i64) : ([c1][c2]i64) =
  let (v : [c1][c2]i64) = a[R(c1, c2)]
  let (r : [c1][c2]i64) = copy v
  in (r)
-- input: n=6 c1=-1 c2=-1
-- input: n=6 c1=-1 c2=0
-- input: n=6 c1=0 c2=-1
-- expect: error size
