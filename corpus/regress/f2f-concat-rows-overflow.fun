-- A concat whose rows (a + a) leave i64 is a resource error in the source; the
-- allocation fun-to-funmem inserts before it, (a + a) * m, overflows too, and an
-- allocation size that overflows is a resource error (docs/syntax.md).
def f (a : i64) (m : i64) : ([a+a][m]i64) =
  let (x : [a][m]i64) = scratch
  let (y : [a][m]i64) = scratch
  let (z : [a+a][m]i64) = concat x y
  in (z)
-- input: a=4611686018427387904 m=0
-- expect: error resource
-- refuses: 6.2 (1) destination memory
-- refuses: 6.2 (1) destination memory
